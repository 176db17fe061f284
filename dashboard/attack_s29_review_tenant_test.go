package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A host gives both WithAuth (its sign-in puts the person's principal,
// with their tenant, in the request's context) and WithTenant (here the
// tenant a front proxy names in X-Tenant, as a host routes by subdomain or
// path). carol of acme asked for the page of globex: the queue, limited
// to her principal's tenant, showed no approval, but the history, the
// charts and the live calls were WithTenant's tenant's, globex's, with
// their ids, sessions and errors. A request whose principal's tenant is
// not the one WithTenant names is now refused (403) on every path; a
// principal of no tenant (the operator) still opens any tenant's page.
func TestAttackS29ReviewWithTenantDisagreeingWithThePrincipalIsRefused(t *testing.T) {
	f := newAuthFixture(t, dashboard.WithAuth(principalAuth), dashboard.WithTenant(tenantHeader))
	done := make(chan *tool.Result, 1)
	go func() {
		res, _ := f.ex.Execute(context.Background(), tool.Call{ID: "call_1", Name: "write_file", Session: "s-globex",
			Args:      json.RawMessage(`{"path":"globex.txt","content":"plans"}`),
			Principal: tool.Principal{ID: "alice", Tenant: "globex"}})
		done <- res
	}()
	id := waitQueue(t, f.queue)
	require.NoError(t, f.queue.ResolveContext(context.Background(), id, approval.Denied("ops", "merger of globex and initech is secret")))
	require.False(t, (<-done).OK())

	carolAsGlobex := hdrs("X-Ops-User", "carol", "X-Tenant", "globex")
	for _, path := range []string{"/api/history", "/api/stats", "/api/approvals", "/api/events"} {
		res, body := f.getRefused(t, path, carolAsGlobex)
		assert.Equal(t, http.StatusForbidden, res.StatusCode, "carol of acme was served %s of globex: %s", path, body)
		assert.NotContains(t, body, "merger", path)
	}

	// Her own tenant's page, and the operator's view of globex's, open.
	res, body := f.getRefused(t, "/api/history", hdrs("X-Ops-User", "carol", "X-Tenant", "acme"))
	assert.Equal(t, http.StatusOK, res.StatusCode, body)
	res, body = f.getRefused(t, "/api/history", hdrs("X-Ops-User", "erin", "X-Tenant", "globex"))
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	assert.Contains(t, body, "merger", "erin, of no tenant, reads globex's page")
	res, body = f.getRefused(t, "/api/history", hdrs("X-Ops-User", "dave", "X-Tenant", "globex"))
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	assert.Contains(t, body, "merger", "dave of globex reads globex's page")
}
