package approvalgate_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Sessions are named by clients, so two tenants can both have a session
// "s1". Tenant globex ending its conversation "s1" forgets globex's
// decisions, not acme's: acme's remembered approval still answers, and
// acme's own Forget ends it.
func TestAttackForgetOfOneTenantLeavesAnothersSession(t *testing.T) {
	var asked atomic.Int32
	reg := registry.New()
	reg.MustRegister(tool.Func("pay", "Pay an invoice", func(context.Context, struct{}) (string, error) {
		return "paid", nil
	}, tool.WithRisk(tool.RiskHigh))) // high risk: asked about, and rememberable (WithApproval is asked every call)
	gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		asked.Add(1)
		return approval.Approved("ops").WithScope(approval.ScopeSessionTool), nil
	}))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)
	call := func(tenant string) {
		t.Helper()
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "pay", Args: json.RawMessage(`{}`),
			Principal: tool.Principal{ID: "alice", Tenant: tenant}, Session: "s1"})
		require.NoError(t, err)
		require.Nil(t, res.Error)
	}
	call("acme")
	call("globex")
	require.EqualValues(t, 2, asked.Load(), "each tenant's session is asked once")

	gate.Forget("globex", "s1") // globex's conversation "s1" ends
	call("acme")
	assert.EqualValues(t, 2, asked.Load(), "globex's Forget wiped acme's session s1")
	call("globex")
	assert.EqualValues(t, 3, asked.Load(), "globex's session s1 is forgotten")

	gate.Forget("acme", "s1")
	call("acme")
	assert.EqualValues(t, 4, asked.Load(), "acme's session s1 is forgotten")
}
