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

// Alice of acme approves "pay" for the rest of session s1. Session names
// are given by clients, so others use "s1" too: another tenant's
// principal, a principal of no tenant with alice's id, alice's id in
// another tenant, a principal of no id in acme. None of them is approved
// by alice's decision; and the Forget of another tenant's s1, or of the
// s1 of no tenant, leaves alice's approval as it is. Guard test: the rule
// held on the code as it is (the memory keys a decision by tenant,
// principal, roles and agent).
func TestAttackS31SessionApprovalStaysWithItsTenantAndPrincipal(t *testing.T) {
	var asked []tool.Principal
	reg := registry.New()
	reg.MustRegister(tool.Func("pay", "Pay an invoice", func(context.Context, struct{}) (string, error) {
		return "paid", nil
	}, tool.WithRisk(tool.RiskHigh)))
	gate := approvalgate.New(approval.ApproverFunc(func(_ context.Context, r approval.Request) (approval.Decision, error) {
		asked = append(asked, r.Principal)
		return approval.Approved("ops").WithScope(approval.ScopeSessionTool), nil
	}))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)
	call := func(p tool.Principal) {
		t.Helper()
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "pay", Args: json.RawMessage(`{}`), Principal: p, Session: "s1"})
		require.NoError(t, err)
		require.Nil(t, res.Error)
	}
	alice := tool.Principal{ID: "alice", Tenant: "acme"}
	call(alice)
	require.Len(t, asked, 1)

	others := []tool.Principal{
		{ID: "bob", Tenant: "other"},
		{ID: "alice"},                  // no tenant
		{ID: "alice", Tenant: "other"}, // the same id in another tenant
		{Tenant: "acme"},               // no id, alice's tenant
		{},                             // nobody
		{ID: "acme", Tenant: "alice"},  // the fields swapped
	}
	for i, p := range others {
		call(p)
		assert.Len(t, asked, i+2, "%+v ran on alice of acme's approval for the session", p)
	}

	// Forgets of other tenants' s1 (the one of no tenant too) keep alice's.
	gate.Forget("", "s1")
	gate.Forget("other", "s1")
	gate.Forget("acme", "s2")
	n := len(asked)
	call(alice)
	assert.Len(t, asked, n, "another tenant's Forget wiped acme's session")
	gate.Forget("acme", "s1")
	call(alice)
	assert.Len(t, asked, n+1, "acme's Forget of s1 is kept")
}
