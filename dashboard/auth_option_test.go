package dashboard_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
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

// userKey is where the program's middleware puts the person it let in.
type userKey struct{}

// opsAuth is a program's own authentication: it lets in the users it knows
// (by the X-Ops-User header a front proxy would set), puts the name in the
// request's context, and refuses everyone else with 403 before the
// dashboard sees the request. refused counts what it turned away.
func opsAuth(refused *atomic.Int64) func(http.Handler) http.Handler {
	users := map[string]bool{"carol": true, "dave": true}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u := r.Header.Get("X-Ops-User")
			if !users[u] {
				refused.Add(1)
				http.Error(w, "ops-sso: sign in first", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
		})
	}
}

func identityFromAuth(r *http.Request) string {
	u, _ := r.Context().Value(userKey{}).(string)
	return "sso:" + u
}

// newAuthFixture is newFixture without the default token: the dashboard
// has exactly opts.
func newAuthFixture(t *testing.T, opts ...dashboard.Option) *fixture {
	t.Helper()
	f := &fixture{queue: approval.NewQueue(), written: make(chan WriteArgs, 16)}
	reg := registry.New()
	reg.MustRegister(tool.Func("write_file", "Write a file in the project", func(_ context.Context, in WriteArgs) (string, error) {
		f.written <- in
		return "wrote " + in.Path, nil
	}, tool.WithRisk(tool.RiskHigh)))
	gate := approvalgate.New(f.queue)
	f.ex = executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
	h, err := dashboard.New(f.ex, append([]dashboard.Option{dashboard.WithQueue(f.queue)}, opts...)...)
	require.NoError(t, err)
	f.srv = httptest.NewServer(h)
	t.Cleanup(f.srv.Close)
	return f
}

// getRefused is f.get for a request that must be refused: a bounded wait,
// so that a stream the dashboard wrongly opens fails the test instead of
// hanging it.
func (f *fixture) getRefused(t *testing.T, path string, hdr http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.srv.URL+path, nil)
	require.NoError(t, err)
	for k, v := range hdr {
		req.Header[k] = v
	}
	c := client()
	c.Timeout = 5 * time.Second
	res, err := c.Do(req)
	require.NoError(t, err, "%s: a refused request is answered at once", path)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err, "%s: a refused request is answered at once", path)
	return res, string(b)
}

func hdrs(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// pendingIDs lists the approvals still waiting, straight from the queue
// (not through the dashboard).
func pendingIDs(t *testing.T, q *approval.Queue) []string {
	t.Helper()
	list, err := q.PendingContext(context.Background())
	require.NoError(t, err)
	var ids []string
	for _, p := range list {
		ids = append(ids, p.ID)
	}
	return ids
}

func waitQueue(t *testing.T, q *approval.Queue) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := q.Next(ctx) // returns once a request is pending
	require.NoError(t, err, "no call asked for approval")
	require.Equal(t, []string{p.ID}, pendingIDs(t, q), "one request waits")
	return p.ID
}

// WithAuth alone: the program's middleware is the only gate. What it
// refuses never reaches the dashboard (no page, no CSRF token, no
// approvals, no decision); what it lets in needs no dashboard token, and
// WithIdentity names the person it let in.
func TestWithAuthAloneGuardsTheDashboard(t *testing.T) {
	var refused atomic.Int64
	f := newAuthFixture(t, dashboard.WithAuth(opsAuth(&refused)), dashboard.WithIdentity(identityFromAuth))
	done := f.startCall(t, `{"path":"docs/a.md","content":"x"}`)
	id := waitQueue(t, f.queue)

	// Let in (no token anywhere): the page, its CSRF token and the approval.
	carol := hdrs("X-Ops-User", "carol")
	res, page := f.get(t, "/", carol)
	require.Equal(t, http.StatusOK, res.StatusCode, page)
	csrf := csrfOf(t, f, carol)
	res, body := f.get(t, "/api/approvals", carol)
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, body, id)

	// Refused: no user, an unknown user, and the dashboard's own ways in
	// (a bearer token, a ?token=) mean nothing to the middleware.
	for _, h := range []http.Header{nil, hdrs("X-Ops-User", "mallory"), bearer()} {
		for _, path := range []string{"/", "/?token=" + token, "/static/app.js", "/api/session", "/api/approvals", "/api/history", "/api/stats", "/api/events"} {
			before := refused.Load()
			res, body := f.getRefused(t, path, h)
			assert.Equal(t, http.StatusForbidden, res.StatusCode, path)
			assert.Equal(t, "ops-sso: sign in first\n", body, "%s: only the middleware's answer", path)
			assert.NotContains(t, body, id, path)
			assert.Equal(t, before+1, refused.Load(), path)
		}
		// A decision with the right CSRF token and origin, but not let in:
		// nothing is decided.
		post := h.Clone()
		if post == nil {
			post = http.Header{}
		}
		post.Set(dashboard.CSRFHeader, csrf)
		post.Set("Content-Type", "application/json")
		code, out := f.post(t, "/api/approvals/"+id, `{"action":"approve"}`, post)
		assert.Equal(t, http.StatusForbidden, code, "%v", out)
		assert.Equal(t, []string{id}, pendingIDs(t, f.queue), "a refused request decides nothing")
	}
	select {
	case <-done:
		t.Fatal("the call ran although no one let in approved it")
	default:
	}

	// Let in, the decision is made and names the person the middleware let in.
	post := hdrs("X-Ops-User", "carol", dashboard.CSRFHeader, csrf, "Content-Type", "application/json")
	code, out := f.post(t, "/api/approvals/"+id, `{"action":"approve"}`, post)
	require.Equal(t, http.StatusOK, code, "%v", out)
	assert.Equal(t, "sso:carol", out["decided_by"])
	r := <-done
	require.True(t, r.OK(), "%v", r.Error)
	assert.Equal(t, "sso:carol", r.Metadata["approval"].(map[string]any)["decided_by"])
	assert.Equal(t, "docs/a.md", (<-f.written).Path)
}

// WithToken and WithAuth together: a request needs both, the middleware's
// sign-in and the dashboard's token.
func TestWithAuthAndWithTokenNeedBoth(t *testing.T) {
	var refused atomic.Int64
	f := newAuthFixture(t, dashboard.WithToken(token), dashboard.WithAuth(opsAuth(&refused)), dashboard.WithIdentity(identityFromAuth))
	done := f.startCall(t, `{"path":"docs/b.md","content":"x"}`)
	id := waitQueue(t, f.queue)

	both := bearer()
	both.Set("X-Ops-User", "dave")
	res, page := f.get(t, "/", both)
	require.Equal(t, http.StatusOK, res.StatusCode, page)
	csrf := csrfOf(t, f, both)

	// Token without sign-in: the middleware refuses, the dashboard never sees it.
	for _, path := range []string{"/", "/static/app.js", "/api/approvals"} {
		before := refused.Load()
		res, body := f.getRefused(t, path, bearer())
		assert.Equal(t, http.StatusForbidden, res.StatusCode, path)
		assert.NotContains(t, body, id, path)
		assert.Equal(t, before+1, refused.Load(), path)
	}
	// Sign-in without token: the dashboard refuses; the page itself is
	// the same bytes for everyone (TestEveryRequestNeedsTheToken).
	for _, path := range []string{"/api/session", "/api/approvals", "/api/history", "/api/events"} {
		res, body := f.getRefused(t, path, hdrs("X-Ops-User", "dave"))
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode, path)
		assert.NotContains(t, body, id, path)
		assert.NotContains(t, body, csrf, path)
	}
	_, page = f.getRefused(t, "/", hdrs("X-Ops-User", "dave"))
	assert.NotContains(t, page, csrf)
	assert.NotContains(t, page, id)
	// Neither decides anything, even with the CSRF token.
	for _, h := range []http.Header{bearer(), hdrs("X-Ops-User", "dave")} {
		h.Set(dashboard.CSRFHeader, csrf)
		h.Set("Content-Type", "application/json")
		code, out := f.post(t, "/api/approvals/"+id, `{"action":"approve"}`, h)
		assert.Contains(t, []int{http.StatusForbidden, http.StatusUnauthorized}, code, "%v", out)
		assert.Equal(t, []string{id}, pendingIDs(t, f.queue))
	}

	// Both: the approval is listed and decided, in the signed-in name.
	res, body := f.get(t, "/api/approvals", both)
	require.Equal(t, http.StatusOK, res.StatusCode)
	var list []dashboard.Approval
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	require.Len(t, list, 1)
	both.Set(dashboard.CSRFHeader, csrf)
	both.Set("Content-Type", "application/json")
	code, out := f.post(t, "/api/approvals/"+id, `{"action":"deny","message":"not now"}`, both)
	require.Equal(t, http.StatusOK, code, "%v", out)
	assert.Equal(t, "sso:dave", out["decided_by"])
	r := <-done
	require.ErrorIs(t, r.Error, tool.ErrApprovalDenied)
	assert.Contains(t, r.Error.Message, "not now")
}
