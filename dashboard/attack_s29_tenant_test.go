package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/tool"
)

// signedIn are the people a host's sign-in knows, named as the rest of the
// host names who acts: a tool.Principal. erin runs the host and belongs to
// no tenant.
var signedIn = map[string]tool.Principal{
	"carol": {ID: "carol", Tenant: "acme"},
	"dave":  {ID: "dave", Tenant: "globex"},
	"erin":  {ID: "erin"},
}

// principalAuth is a host's sign-in that puts the person's principal in
// the request's context (tool.WithPrincipal), as a host does for the calls
// it makes under that context.
func principalAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := signedIn[r.Header.Get("X-Ops-User")]
		if !ok {
			http.Error(w, "sso: sign in first", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r.WithContext(tool.WithPrincipal(r.Context(), p)))
	})
}

// A shared instance serves several tenants; its sign-in names each person
// with a principal of their tenant, and the dashboard is given WithAuth
// and no WithTenant. carol of acme was shown globex's waiting call, with
// its arguments, and approved it by its id: the queue listed and decided
// every tenant's requests for whoever asked. Now a person whose principal
// has a tenant sees and decides that tenant's approvals only, and an id of
// another tenant's is answered as one that waits for nobody; erin, of no
// tenant, still sees every tenant's.
func TestAttackS29APrincipalOfATenantSeesAndDecidesItsApprovalsOnly(t *testing.T) {
	f := newAuthFixture(t, dashboard.WithAuth(principalAuth))
	as := func(user string) http.Header {
		return http.Header{"X-Ops-User": {user}, "Content-Type": {"application/json"}}
	}
	done := map[string]chan *tool.Result{}
	for _, tenant := range []string{"globex", "acme"} {
		done[tenant] = make(chan *tool.Result, 1)
		go func() {
			res, _ := f.ex.Execute(context.Background(), tool.Call{ID: "call_1", Name: "write_file", Session: "s-" + tenant,
				Args:      json.RawMessage(`{"path":"` + tenant + `.txt","content":"secret plans of ` + tenant + `"}`),
				Principal: tool.Principal{ID: "alice", Tenant: tenant}})
			done[tenant] <- res
		}()
		waitFor(t, f.queue, tenant)
	}
	var globexID string
	list, err := f.queue.PendingContext(context.Background())
	require.NoError(t, err)
	for _, p := range list {
		if p.Request.Principal.Tenant == "globex" {
			globexID = p.ID
		}
	}
	require.NotEmpty(t, globexID)

	_, body := f.get(t, "/api/approvals", as("carol"))
	var shown []dashboard.Approval
	require.NoError(t, json.Unmarshal([]byte(body), &shown), body)
	if assert.Len(t, shown, 1, "carol of acme was shown: %s", body) {
		assert.Equal(t, "acme", shown[0].Tenant)
	}
	assert.NotContains(t, body, "secret plans of globex")

	hdr := as("carol")
	hdr.Set(dashboard.CSRFHeader, csrfOf(t, f, as("carol")))
	code, out := f.post(t, "/api/approvals/"+globexID, `{"action":"approve"}`, hdr)
	assert.Equal(t, http.StatusNotFound, code, "carol of acme decided globex's call: %v", out)
	// The answer for globex's id is the answer for an id nobody has.
	unknownCode, unknown := f.post(t, "/api/approvals/apr-unknown", `{"action":"approve"}`, hdr)
	assert.Equal(t, unknownCode, code)
	assert.Equal(t, unknown["error"], strings.ReplaceAll(out["error"], globexID, "apr-unknown"),
		"the refusal tells globex's waiting id from an unknown one")
	assert.Contains(t, out["error"], `tenant "acme"`, "the refusal names the rule")
	assert.Contains(t, pendingIDs(t, f.queue), globexID, "globex's call still waits")

	// erin runs the host, of no tenant: she sees both, as before.
	_, body = f.get(t, "/api/approvals", as("erin"))
	require.NoError(t, json.Unmarshal([]byte(body), &shown), body)
	assert.Len(t, shown, 2, "erin, of no tenant, sees every tenant's approvals: %s", body)

	// dave of globex decides globex's call, carol acme's.
	hdr = as("dave")
	hdr.Set(dashboard.CSRFHeader, csrfOf(t, f, as("dave")))
	code, out = f.post(t, "/api/approvals/"+globexID, `{"action":"deny"}`, hdr)
	require.Equal(t, http.StatusOK, code, "%v", out)
	require.False(t, (<-done["globex"]).OK())
	_, body = f.get(t, "/api/approvals", as("carol"))
	require.NoError(t, json.Unmarshal([]byte(body), &shown), body)
	require.Len(t, shown, 1)
	hdr = as("carol")
	hdr.Set(dashboard.CSRFHeader, csrfOf(t, f, as("carol")))
	code, out = f.post(t, "/api/approvals/"+shown[0].ID, `{"action":"deny"}`, hdr)
	require.Equal(t, http.StatusOK, code, "%v", out)
	require.False(t, (<-done["acme"]).OK())

	// Her history is acme's too.
	_, body = f.get(t, "/api/history", as("carol"))
	var calls []dashboard.Call
	require.NoError(t, json.Unmarshal([]byte(body), &calls), body)
	if assert.Len(t, calls, 1, body) {
		assert.Equal(t, "acme", calls[0].Tenant)
	}
}
