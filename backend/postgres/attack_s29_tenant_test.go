package postgres_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A fleet serves several tenants from one database. Its dashboard signs
// people in with WithAuth, whose middleware names each person with a
// principal of their tenant (tool.WithPrincipal). carol of acme was shown
// globex's waiting call, with its arguments, and approved it: the shared
// store lists and decides every tenant's requests, and nothing between it
// and the page looked at who asked. Now she sees and decides acme's alone,
// on the page and through the Queue; erin, of no tenant, sees both.
func TestAttackS29APrincipalOfATenantDecidesItsApprovalsOnlyAcrossAFleet(t *testing.T) {
	dsn := database(t)
	put := make(chan approval.Pending, 2)
	waiter := newInstance(t, dsn, func(s *postgres.Stores) []executorOption {
		gate := approvalgate.New(approval.NewQueue(approval.QueueStore(s.Approvals),
			approval.OnPending(func(_ *approval.Queue, p approval.Pending) { put <- p })),
			approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAlwaysAsk)))
		return []executorOption{executor.WithExtensions(gate, gate.Guard())}
	})
	other := postgres.New(newPool(t, dsn))
	defer other.Close()
	queue := approval.NewQueue(approval.QueueStore(other.Approvals))
	people := map[string]tool.Principal{"carol": {ID: "carol", Tenant: "acme"}, "dave": {ID: "dave", Tenant: "globex"}, "erin": {ID: "erin"}}
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, ok := people[r.Header.Get("X-Ops-User")]
			if !ok {
				http.Error(w, "sign in first", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r.WithContext(tool.WithPrincipal(r.Context(), p)))
		})
	}
	dash, err := dashboard.New(executor.MustNew(waiter.ex.Registry()), dashboard.WithAuth(auth), dashboard.WithQueue(queue))
	require.NoError(t, err)
	srv := httptest.NewServer(dash)
	defer srv.Close()
	do := func(user, method, path, body, csrf string) (int, string) {
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("X-Ops-User", user)
		if csrf != "" {
			req.Header.Set(dashboard.CSRFHeader, csrf)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	done := map[string]chan *tool.Result{}
	ids := map[string]string{}
	for _, tenant := range []string{"globex", "acme"} {
		done[tenant] = make(chan *tool.Result, 1)
		go func() {
			res, _ := waiter.ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "send", Args: json.RawMessage(`{"to":"the board of ` + tenant + `"}`),
				Principal: tool.Principal{ID: "alice", Tenant: tenant}})
			done[tenant] <- res
		}()
		select {
		case p := <-put:
			ids[tenant] = p.ID
		case <-time.After(10 * time.Second):
			t.Fatalf("%s's call never asked", tenant)
		}
	}

	code, body := do("carol", http.MethodGet, "/api/approvals", "", "")
	require.Equal(t, http.StatusOK, code, body)
	var list []dashboard.Approval
	require.NoError(t, json.Unmarshal([]byte(body), &list), body)
	if assert.Len(t, list, 1, "carol of acme was shown: %s", body) {
		assert.Equal(t, "acme", list[0].Tenant)
	}
	assert.NotContains(t, body, "the board of globex")
	code, body = do("carol", http.MethodGet, "/api/session", "", "")
	require.Equal(t, http.StatusOK, code, body)
	var session dashboard.Session
	require.NoError(t, json.Unmarshal([]byte(body), &session), body)
	code, body = do("carol", http.MethodPost, "/api/approvals/"+ids["globex"], `{"action":"approve"}`, session.CSRF)
	assert.Equal(t, http.StatusNotFound, code, "carol of acme decided globex's call: %s", body)

	// Through the Queue, with carol's principal: the same rule.
	carol := tool.WithPrincipal(context.Background(), people["carol"])
	err = queue.ResolveContext(carol, ids["globex"], approval.Approved("carol"))
	require.ErrorIs(t, err, approval.ErrNotPending, "carol of acme approved globex's call through the queue")
	assert.Contains(t, err.Error(), `tenant "acme"`)

	code, body = do("erin", http.MethodGet, "/api/approvals", "", "")
	require.Equal(t, http.StatusOK, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &list), body)
	assert.Len(t, list, 2, "erin, of no tenant, sees every tenant's approvals: %s", body)

	for tenant, user := range map[string]string{"globex": "dave", "acme": "carol"} {
		code, body = do(user, http.MethodPost, "/api/approvals/"+ids[tenant], `{"action":"deny","message":"not now"}`, session.CSRF)
		require.Equal(t, http.StatusOK, code, body)
		select {
		case res := <-done[tenant]:
			require.ErrorIs(t, res.Error, tool.ErrApprovalDenied, "%s's call", tenant)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s's call did not wake", tenant)
		}
	}
	assert.Zero(t, waiter.runs.Load(), "no call ran")
}
