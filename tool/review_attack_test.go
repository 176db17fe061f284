package tool_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// Roles that come with no ID are claimed by nobody and grant nothing, as
// the auth extension judges them (TestAnonymousCallHoldsNoRoles). Since
// FuncTool.Run hands the function the call's principal, a Go tool that
// checks tool.PrincipalFrom(ctx).HasRole("admin") was given the role an
// anonymous call claimed, and showed it what admins see. The function now
// sees an anonymous call's tenant, without roles.
func TestFuncSeesNoRolesOfAnAnonymousCall(t *testing.T) {
	report := tool.Func("report", "The report, in full for admins", func(ctx context.Context, _ struct{}) (string, error) {
		if p, _ := tool.PrincipalFrom(ctx); p.HasRole("admin") {
			return "full report of " + p.Tenant, nil
		}
		return "summary", nil
	})
	run := func(p tool.Principal) string {
		res, err := report.Run(context.Background(), tool.Call{Name: "report", Principal: p})
		require.NoError(t, err)
		return res.Text()
	}
	assert.Equal(t, "summary", run(tool.Principal{Tenant: "acme", Roles: []string{"admin"}}), "an anonymous call's claimed role was granted")
	assert.Equal(t, "full report of acme", run(tool.Principal{ID: "alice", Tenant: "acme", Roles: []string{"admin"}}))

	tenant := tool.Func("tenant", "The caller's tenant", func(ctx context.Context, _ struct{}) (string, error) {
		p, ok := tool.PrincipalFrom(ctx)
		if !ok {
			return "none", nil
		}
		return p.Tenant, nil
	})
	res, err := tenant.Run(context.Background(), tool.Call{Name: "tenant", Principal: tool.Principal{Tenant: "acme", Roles: []string{"admin"}}})
	require.NoError(t, err)
	assert.Equal(t, "acme", res.Text(), "the anonymous call's tenant is still the function's")
}
