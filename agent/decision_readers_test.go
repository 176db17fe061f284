package agent_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The approval decision a result's metadata records is read one way by
// the agent's Decisions, the audit trail and the metrics: an approval
// extension of one's own may record it as a string, a fmt.Stringer
// (approval.Kind), or a map with "decision" (as extension/approvalgate
// does), or set only approval.MetaModifiedKey ("modify"). The agent read
// only the map with a string, the metrics not the modified key alone, so
// each told a different story of the same calls.
func TestApprovalDecisionReadOneWay(t *testing.T) {
	reg := registry.New()
	for _, name := range []string{"plain", "kind", "mapped", "modified"} {
		reg.MustRegister(tool.Func(name, "Works", func(context.Context, struct{}) (string, error) { return "done", nil }))
	}
	own := extension.Func("own-approval", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			res := next(ctx, req)
			switch req.Call.Name {
			case "plain":
				res.SetMeta(approval.MetaKey, "approve")
			case "kind":
				res.SetMeta(approval.MetaKey, approval.Deny)
			case "mapped":
				res.SetMeta(approval.MetaKey, map[string]any{"decision": "approve", "decided_by": "bob"})
			case "modified":
				res.SetMeta(approval.MetaModifiedKey, true)
			}
			return res
		}
	})
	trailPath := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(trailPath)
	require.NoError(t, err)
	ex := executor.MustNew(reg, executor.WithExtensions(trail, metrics.New(), own))
	model := &script{turns: []func([]agent.Message, []tool.Spec) agent.Message{
		func([]agent.Message, []tool.Spec) agent.Message {
			return agent.Message{Role: agent.RoleAssistant, Calls: []tool.Call{call("plain", `{}`), call("kind", `{}`), call("mapped", `{}`), call("modified", `{}`)}}
		},
		func([]agent.Message, []tool.Spec) agent.Message {
			return agent.Message{Role: agent.RoleAssistant, Text: "done"}
		},
	}}
	tr, err := agent.Run(context.Background(), model, []agent.Message{{Role: agent.RoleUser, Text: "work"}},
		agent.Options{Executor: ex, Tools: []string{"plain", "kind", "mapped", "modified"}})
	require.NoError(t, err)
	require.NoError(t, trail.Close())
	require.Len(t, tr.Steps, 1)

	want := map[string]string{"plain": "approve", "kind": "deny", "mapped": "approve", "modified": "modify"}
	decided := map[string]string{}
	for _, d := range tr.Steps[0].Decisions {
		decided[d.Tool] = d.Decision
		if d.Tool == "mapped" {
			assert.Equal(t, "bob", d.DecidedBy)
		}
	}
	assert.Equal(t, want, decided, "the agent's decisions")

	records := map[string]string{}
	f, err := os.Open(trailPath)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r audit.Record
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		if r.Kind == audit.KindOutcome {
			records[r.Tool] = r.Decision
		}
	}
	assert.Equal(t, want, records, "the audit trail's decisions")

	observed := map[string]string{}
	for _, r := range tr.Steps[0].Results {
		observed[r.Tool] = metrics.Observe(r).Approval
	}
	assert.Equal(t, want, observed, "the metrics' decisions")
}
