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

// A decision remembered for a session covers whom the call acts for, as an
// approval does at the guard (the principal's id, tenant and roles, and the
// agent): the person was shown alice's call, as a dev, from the coding
// agent, and said "approve pay for this session". The same session's call
// from another agent (a browsing agent reading untrusted pages), or from
// alice with roles she did not have when asked, was run on that decision
// without anyone being asked.
func TestAttackS15SessionApprovalCoversWhomItWasAskedFor(t *testing.T) {
	alice := func() tool.Principal { return tool.Principal{ID: "alice", Tenant: "acme", Roles: []string{"dev"}} }
	for _, tc := range []struct {
		name   string
		change func(*tool.Call)
	}{
		{"another agent", func(c *tool.Call) { c.Agent = "browser" }},
		{"no agent", func(c *tool.Call) { c.Agent = "" }},
		{"more roles", func(c *tool.Call) { c.Principal.Roles = []string{"dev", "admin"} }},
		{"other roles", func(c *tool.Call) { c.Principal.Roles = []string{"admin"} }},
		{"no roles", func(c *tool.Call) { c.Principal.Roles = nil }},
		{"roles joined into one", func(c *tool.Call) { c.Principal.Roles = []string{"dev\x00"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
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
			call := func(c tool.Call) {
				t.Helper()
				_, err := ex.Execute(context.Background(), c)
				require.NoError(t, err)
			}
			first := tool.Call{ID: "c1", Name: "pay", Args: json.RawMessage(`{}`), Principal: alice(), Session: "s1", Agent: "coder"}
			call(first)
			second := first
			second.ID, second.Principal = "c2", alice()
			call(second)
			require.EqualValues(t, 1, asked.Load(), "the same principal and agent in the session: remembered")

			other := first
			other.ID, other.Principal = "c3", alice()
			tc.change(&other)
			call(other)
			assert.EqualValues(t, 2, asked.Load(), "%s ran on a decision made for alice (dev) from agent coder", tc.name)
		})
	}
}
