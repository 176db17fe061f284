package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// reviewerTenant is the tenant each reviewer the host's sign-in knows
// works for.
var reviewerTenant = map[string]string{"carol": "acme", "dave": "globex"}

// tenantAuth is a host's sign-in: it lets in the reviewers it knows (by
// the X-Ops-User header a front proxy sets) and puts the name in the
// request's context.
func tenantAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u := r.Header.Get("X-Ops-User")
		if _, ok := reviewerTenant[u]; !ok && u != "erin" { // erin works for no tenant
			http.Error(w, "sso: sign in first", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
	})
}

// tenantOfReviewer is WithTenant's function for tenantAuth's reviewers.
func tenantOfReviewer(r *http.Request) (string, bool) {
	u, _ := r.Context().Value(userKey{}).(string)
	t, ok := reviewerTenant[u]
	return t, ok
}

// A multi-tenant host lets each tenant's reviewers decide their own
// tenant's calls. With what the dashboard offered (WithAuth to let the
// reviewers in, WithIdentity to name them), carol of acme listed globex's
// waiting call with its arguments, approved it by its id, and read
// globex's live calls and history: every person let in saw and decided
// every tenant's calls. WithTenant names a request's tenant, and the page
// shows and decides that tenant's calls only.
func TestAttackS17AReviewerSeesAndDecidesHerTenantsCallsOnly(t *testing.T) {
	queue := approval.NewQueue()
	reg := registry.New()
	reg.MustRegister(tool.Func("write_file", "Write a file in the project", func(_ context.Context, in WriteArgs) (string, error) {
		return "wrote " + in.Path, nil
	}, tool.WithRisk(tool.RiskHigh)))
	gate := approvalgate.New(queue)
	ex := executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
	h, err := dashboard.New(ex, dashboard.WithQueue(queue), dashboard.WithAuth(tenantAuth),
		dashboard.WithIdentity(identityFromAuth), dashboard.WithTenant(tenantOfReviewer))
	require.NoError(t, err)
	f := &fixture{ex: ex, queue: queue}
	f.srv = httptest.NewServer(h)
	t.Cleanup(f.srv.Close)
	as := func(user string) http.Header { return http.Header{"X-Ops-User": {user}} }

	// The events carol's page receives, from before any call.
	req, err := http.NewRequest(http.MethodGet, f.srv.URL+"/api/events", nil)
	require.NoError(t, err)
	req.Header = as("carol")
	stream, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer stream.Body.Close()
	require.Equal(t, http.StatusOK, stream.StatusCode)
	events := bufio.NewReader(stream.Body)
	line, err := events.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "retry: 2000\n", line)

	done := map[string]chan *tool.Result{}
	for _, tenant := range []string{"globex", "acme"} {
		done[tenant] = make(chan *tool.Result, 1)
		go func() {
			res, _ := ex.Execute(context.Background(), tool.Call{ID: "call_1", Name: "write_file", Session: "s-" + tenant,
				Args: json.RawMessage(`{"path":"` + tenant + `.txt","content":"secret plans of ` + tenant + `"}`), Principal: tool.Principal{ID: "alice", Tenant: tenant}})
			done[tenant] <- res
		}()
		waitFor(t, queue, tenant)
	}
	var globexID string
	list, err := queue.PendingContext(context.Background())
	require.NoError(t, err)
	for _, p := range list {
		if p.Request.Principal.Tenant == "globex" {
			globexID = p.ID
		}
	}
	require.NotEmpty(t, globexID)

	_, body := f.get(t, "/api/approvals", as("carol"))
	var shown []dashboard.Approval
	require.NoError(t, json.Unmarshal([]byte(body), &shown))
	if assert.Len(t, shown, 1, "carol of acme was shown: %s", body) {
		assert.Equal(t, "acme", shown[0].Tenant)
	}
	assert.NotContains(t, body, "globex")
	for _, path := range []string{"/", "/api/approvals", "/api/history", "/api/events"} {
		res, body := f.getRefused(t, path, as("erin"))
		assert.Equal(t, http.StatusForbidden, res.StatusCode, "%s: erin, signed in but of no tenant WithTenant names, was served", path)
		assert.NotContains(t, body, "secret plans")
	}

	hdr := as("carol")
	hdr.Set(dashboard.CSRFHeader, csrfOf(t, f, as("carol")))
	hdr.Set("Content-Type", "application/json")
	code, out := f.post(t, "/api/approvals/"+globexID, `{"action":"approve"}`, hdr)
	assert.Equal(t, http.StatusNotFound, code, "carol of acme decided globex's call: %v", out)
	assert.Contains(t, pendingIDs(t, queue), globexID, "globex's call still waits")

	// dave of globex decides it, and carol her own.
	hdr = as("dave")
	hdr.Set(dashboard.CSRFHeader, csrfOf(t, f, as("dave")))
	code, out = f.post(t, "/api/approvals/"+globexID, `{"action":"approve"}`, hdr)
	require.Equal(t, http.StatusOK, code, "%v", out)
	assert.Equal(t, "sso:dave", out["decided_by"])
	require.True(t, (<-done["globex"]).OK())
	_, body = f.get(t, "/api/approvals", as("carol"))
	require.NoError(t, json.Unmarshal([]byte(body), &shown))
	require.Len(t, shown, 1)
	hdr = as("carol")
	hdr.Set(dashboard.CSRFHeader, csrfOf(t, f, as("carol")))
	code, out = f.post(t, "/api/approvals/"+shown[0].ID, `{"action":"deny"}`, hdr)
	require.Equal(t, http.StatusOK, code, "%v", out)
	require.False(t, (<-done["acme"]).OK())

	// Carol's live calls and history are acme's; a filter cannot widen them.
	for _, ev := range readEvents(t, events, 4) { // acme's submitted, approval requested and decided, failed
		assert.Equal(t, "acme", ev.Tenant, "carol's page received %s of %s/%s", ev.Kind, ev.Tenant, ev.Principal)
	}
	for _, path := range []string{"/api/history", "/api/history?principal=alice", "/api/history?tool=write_file"} {
		_, body = f.get(t, path, as("carol"))
		var calls []dashboard.Call
		require.NoError(t, json.Unmarshal([]byte(body), &calls), body)
		if assert.Len(t, calls, 1, "%s: %s", path, body) {
			assert.Equal(t, "acme", calls[0].Tenant)
		}
	}
	res, body := f.get(t, "/api/history?tenant=globex", as("carol"))
	assert.Equal(t, http.StatusForbidden, res.StatusCode, body)
	assert.NotContains(t, body, "secret plans")
	_, body = f.get(t, "/api/stats", as("carol"))
	var stats []dashboard.ToolStats
	require.NoError(t, json.Unmarshal([]byte(body), &stats))
	if assert.Len(t, stats, 1) {
		assert.Equal(t, uint64(1), stats[0].Calls, "carol's charts count acme's calls only")
	}
}

// waitFor waits until a call of tenant waits in q: Queue.Next returns
// each request once it is pending.
func waitFor(t *testing.T, q *approval.Queue, tenant string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		p, err := q.Next(ctx)
		require.NoError(t, err, "no call of %s asked for approval", tenant)
		if p.Request.Principal.Tenant == tenant {
			return
		}
	}
}
