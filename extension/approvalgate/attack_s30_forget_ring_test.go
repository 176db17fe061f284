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

// Forget dropped a session's decisions but left their places in the
// memory's ring: a denial given again in a session of the same name took a
// new place, and the old one, reached first, dropped it, after one more
// decision instead of after the memory's size. The person's "no, for this
// session" was forgotten and the call ran on the next approval.
func TestAttackS30ForgetDoesNotShortenALaterDenial(t *testing.T) {
	ran := 0
	reg := registry.New()
	for _, name := range []string{"pay", "other"} {
		reg.MustRegister(tool.Func(name, "Pay", func(context.Context, struct{}) (string, error) {
			ran++
			return "paid", nil
		}, tool.WithRisk(tool.RiskHigh)))
	}
	asked := 0
	gate := approvalgate.New(approval.ApproverFunc(func(_ context.Context, r approval.Request) (approval.Decision, error) {
		asked++
		if r.Call.Name == "pay" && asked < 3 {
			return approval.Denied("ops", "not in this session").WithScope(approval.ScopeSessionTool), nil
		}
		return approval.Approved("ops").WithScope(approval.ScopeSessionTool), nil
	}), approvalgate.WithSessionMemory(2))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)
	call := func(name string) *tool.Result {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "alice"}, Session: "s1"})
		return res
	}
	require.NotNil(t, call("pay").Error) // asked 1: denied for the session
	gate.Forget("", "s1")
	require.NotNil(t, call("pay").Error) // asked 2: denied again
	require.Nil(t, call("other").Error)  // asked 3: the memory holds two
	res := call("pay")                   // the denial is remembered
	assert.Equal(t, 3, asked, "the denial given after Forget was dropped after one more decision")
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
	assert.Equal(t, 1, ran)
}
