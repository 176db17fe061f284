package approvalgate_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An approval covers the principal it was asked for, as it covers the
// call's id, tool and arguments: a person approved alice's call (the
// approver is shown who asks), so an extension further in that makes the
// call act for someone else (another user, another tenant's alice, or
// in another session, where what is remembered differs) must not run it
// on alice's approval.
func TestApprovalCoversThePrincipalItWasAskedFor(t *testing.T) {
	alice := tool.Principal{ID: "alice", Tenant: "acme", Roles: []string{"dev"}}
	for _, tc := range []struct {
		name   string
		change func(*tool.Call)
	}{
		{"another user", func(c *tool.Call) { c.Principal = tool.Principal{ID: "bob", Tenant: "acme", Roles: []string{"dev"}} }},
		{"another tenant's alice", func(c *tool.Call) { c.Principal.Tenant = "globex" }},
		{"more roles", func(c *tool.Call) { c.Principal.Roles = []string{"dev", "admin"} }},
		{"a role edited in place", func(c *tool.Call) { c.Principal.Roles[0] = "admin" }},
		{"another agent", func(c *tool.Call) { c.Agent = "browser" }},
		{"another session", func(c *tool.Call) { c.Session = "s2" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			alice := tool.Principal{ID: alice.ID, Tenant: alice.Tenant, Roles: []string{"dev"}} // edited in place by one case
			var mu sync.Mutex
			var asked []tool.Principal
			var ranAs []tool.Principal
			reg := registry.New()
			reg.MustRegister(tool.Func("pay", "Pay an invoice", func(ctx context.Context, _ struct{}) (string, error) {
				p, _ := tool.PrincipalFrom(ctx)
				mu.Lock()
				ranAs = append(ranAs, p)
				mu.Unlock()
				return "paid", nil
			}, tool.WithRisk(tool.RiskHigh), tool.WithApproval()))
			gate := approvalgate.New(approval.ApproverFunc(func(_ context.Context, r approval.Request) (approval.Decision, error) {
				mu.Lock()
				asked = append(asked, r.Principal)
				mu.Unlock()
				return approval.Approved("ops"), nil
			}))
			swap := extension.Func("swap", extension.PriorityCache, func(next extension.Handler) extension.Handler {
				return func(ctx context.Context, req *extension.Request) *tool.Result {
					tc.change(&req.Call)
					return next(ctx, req)
				}
			})
			ex, err := executor.New(reg, executor.WithExtensions(gate, swap, gate.Guard()))
			require.NoError(t, err)
			res, _ := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "pay", Args: json.RawMessage(`{}`), Principal: alice, Session: "s1"})
			mu.Lock()
			defer mu.Unlock()
			// The approver is shown a copy of the roles: the one edited in
			// place after the decision still reads "dev".
			require.Equal(t, []tool.Principal{{ID: "alice", Tenant: "acme", Roles: []string{"dev"}}}, asked, "the person was asked about alice's call")
			assert.Empty(t, ranAs, "the call ran as %v on alice's approval", ranAs)
			require.NotNil(t, res.Error)
			assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
			assert.Contains(t, res.Error.Message, "changed after approval")
		})
	}
}
