package policy_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The policy demands a person's approval in some modes
// (requires_approval_in_modes) by setting approval.RequiredKey for the
// approval extension further in. Placed after the approval extension
// with extension.WithPriority, it set the key where nobody read it: the
// approval extension had let the call through unasked, and the executor,
// which refuses such demands only when no approval extension is
// installed, ran deploy in alert with nobody asked. executor.New now
// refuses the approval extension outside the policy too.
func TestAttackS29ApprovalOutsidePolicyRunsWhatThePolicyWouldHaveAsked(t *testing.T) {
	var deployed, asked atomic.Int32
	reg := registry.New()
	reg.MustRegister(tool.Func("deploy", "Deploy", func(context.Context, struct{}) (string, error) {
		deployed.Add(1)
		return "deployed", nil
	}))
	pol, err := policy.Parse([]byte("global: {mode: alert}\ntools:\n  deploy: {requires_approval_in_modes: [alert]}\n"))
	require.NoError(t, err)
	gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		asked.Add(1)
		return approval.Denied("operator", "not now"), nil
	}), approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAllowAll)))

	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard(), extension.WithPriority(pol, extension.PriorityApproval+50)))
	if err == nil {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "deploy", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "bob"}})
		assert.False(t, res.OK(), "deploy ran in alert with nobody asked")
		assert.Zero(t, deployed.Load())
	}
	require.Error(t, err, "the approval extension outside the policy was taken")
	assert.Contains(t, err.Error(), `extension "approval" runs outside the policy`)

	// In their places the person is asked, and the refusal holds.
	ex, err = executor.New(reg, executor.WithExtensions(gate, gate.Guard(), pol))
	require.NoError(t, err)
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c2", Name: "deploy", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "bob"}})
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
	assert.Equal(t, int32(1), asked.Load())
	assert.Zero(t, deployed.Load())
}
