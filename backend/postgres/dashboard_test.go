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

// Any instance of a fleet can serve the dashboard: a call waits on one
// instance, and a person decides it on the dashboard of another.
func TestDashboardOfAnotherInstanceDecides(t *testing.T) {
	dsn := database(t)
	const token = "fleet-dashboard-token-0123456789"
	// The waiter's queue tells of the request once it is in the database.
	put := make(chan approval.Pending, 1)
	waiter := newInstance(t, dsn, func(s *postgres.Stores) []executorOption {
		// Every call asks, whatever its risk.
		gate := approvalgate.New(approval.NewQueue(approval.QueueStore(s.Approvals),
			approval.OnPending(func(_ *approval.Queue, p approval.Pending) { put <- p })),
			approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAlwaysAsk)))
		return []executorOption{executor.WithExtensions(gate, gate.Guard())}
	})
	other := postgres.New(newPool(t, dsn))
	defer other.Close()
	dash, err := dashboard.New(executor.MustNew(waiter.ex.Registry()), dashboard.WithToken(token),
		dashboard.WithQueue(approval.NewQueue(approval.QueueStore(other.Approvals))))
	require.NoError(t, err)
	srv := httptest.NewServer(dash)
	defer srv.Close()
	do := func(method, path, body, csrf string) (int, string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		if csrf != "" {
			req.Header.Set(dashboard.CSRFHeader, csrf)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	done := make(chan *tool.Result, 1)
	go func() {
		res, _ := waiter.ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "send", Args: json.RawMessage(`{"to":"all"}`),
			Principal: tool.Principal{ID: "alice"}})
		done <- res
	}()
	select {
	case <-put:
	case res := <-done:
		t.Fatalf("the call ended before anyone decided: %+v", res)
	case <-time.After(10 * time.Second):
		t.Fatal("the call on the waiting instance never asked")
	}
	code, body := do(http.MethodGet, "/api/approvals", "", "")
	require.Equal(t, http.StatusOK, code, body)
	var list []dashboard.Approval
	require.NoError(t, json.Unmarshal([]byte(body), &list), body)
	require.Len(t, list, 1, "the other instance's dashboard lists the request")
	// The page asks api/session for its CSRF token, as a browser does.
	code, body = do(http.MethodGet, "/api/session", "", "")
	require.Equal(t, http.StatusOK, code, body)
	var session dashboard.Session
	require.NoError(t, json.Unmarshal([]byte(body), &session), body)
	require.NotEmpty(t, session.CSRF)
	code, body = do(http.MethodPost, "/api/approvals/"+list[0].ID, `{"action":"deny","message":"not to everyone"}`, session.CSRF)
	require.Equal(t, http.StatusOK, code, body)
	select {
	case res := <-done:
		require.ErrorIs(t, res.Error, tool.ErrApprovalDenied)
		assert.Contains(t, res.Error.Message, "not to everyone")
	case <-time.After(10 * time.Second):
		t.Fatal("the call on the other instance did not wake")
	}
}
