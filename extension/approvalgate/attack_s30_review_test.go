package approvalgate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A conversation ended (Forget) while its person was still deciding on a
// call; the approval "for this session" arrived after Forget and was
// remembered anyway, so a later conversation given the same session name
// ran the tool unasked.
func TestAttackS30ReviewForgetDuringAskIsNotUndone(t *testing.T) {
	ran := 0
	reg := registry.New()
	reg.MustRegister(tool.Func("deploy", "Deploy", func(context.Context, struct{}) (string, error) {
		ran++
		return "deployed", nil
	}, tool.WithRisk(tool.RiskHigh)))
	asked := 0
	var gate *approvalgate.Extension
	gate = approvalgate.New(approval.ApproverFunc(func(_ context.Context, r approval.Request) (approval.Decision, error) {
		asked++
		if asked == 1 {
			// The conversation ends while the person decides.
			gate.Forget("acme", "s1")
		}
		return approval.Approved("ops").WithScope(approval.ScopeSessionTool), nil
	}))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)
	call := func() *tool.Result {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "deploy", Args: json.RawMessage(`{}`),
			Principal: tool.Principal{ID: "alice", Tenant: "acme"}, Session: "s1"})
		return res
	}
	require.Nil(t, call().Error) // asked 1, approved as Forget ran
	require.Nil(t, call().Error) // a new conversation named s1
	assert.Equal(t, 2, asked, "an approval given for a session already forgotten answered for a later session of that name")
	assert.Equal(t, 2, ran)
}
