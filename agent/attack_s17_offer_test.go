package agent_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Options.Offer chooses the tools shown to the model each turn, but a
// call to a tool it hid ran all the same, "judged by the executor's
// extensions": with an Offer that is not also an extension (show the
// high-risk tools only once the user has asked for them, a per-task
// subset), nothing judged it, and the model ran a tool it was not
// offered by naming it. A call to a tool not shown this turn is refused
// (policy_denied, saying why), reported to the observers, and not run.
func TestAttackS17ToolHiddenByOfferDoesNotRun(t *testing.T) {
	var wiped atomic.Int32
	reg := registry.New()
	reg.MustRegister(
		tool.Func("add", "Add two integers", func(_ context.Context, in AddArgs) (Sum, error) { return Sum{in.A + in.B}, nil }),
		tool.Func("wipe", "Wipe the disk", func(context.Context, struct{}) (string, error) {
			wiped.Add(1)
			return "wiped", nil
		}, tool.WithRisk(tool.RiskHigh)),
	)
	ex := executor.MustNew(reg)
	model := &script{turns: turns(
		agent.Message{Role: agent.RoleAssistant, Calls: []tool.Call{call("wipe", `{}`), call("add", `{"a":1,"b":2}`)}},
		agent.Message{Role: agent.RoleAssistant, Text: "done"},
	)}
	lowRisk := func(s *tool.Spec) bool { return s.Risk.Effective() != tool.RiskHigh }
	tr, err := agent.Run(context.Background(), model, []agent.Message{{Role: agent.RoleUser, Text: "add"}},
		agent.Options{Executor: ex, Tools: []string{"add", "wipe"}, Offer: lowRisk})
	require.NoError(t, err)
	assert.Equal(t, []string{"add"}, model.tools[0], "the model was shown add only")
	assert.Zero(t, wiped.Load(), "the tool Offer hid ran")
	require.Len(t, tr.Steps, 1)
	res := tr.Steps[0].Results[0]
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodePolicyDenied, res.Error.Code)
	assert.Contains(t, res.Error.Message, "not offered")
	assert.Nil(t, tr.Steps[0].Results[1].Error, "the offered call beside it runs")
}
