package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/dashboard"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The write waits for a person; deciding it on the dashboard lets the agent
// finish.
func TestTheWriteWaitsForAClickOnTheDashboard(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	const token = "example-test-token-0123456789"
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(context.Background(), &out, ln, token, false) }()

	base := "http://" + ln.Addr().String() + "/dashboard/"
	get := func(path string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	var pending []dashboard.Approval
	// Polled, as a browser does: run builds its queue inside, and the only
	// event it serves (approval_requested on /api/events) is sent before
	// the request is queued.
	require.Eventually(t, func() bool {
		code, body := get("api/approvals")
		pending = nil
		_ = json.Unmarshal([]byte(body), &pending)
		return code == http.StatusOK && len(pending) == 1
	}, 20*time.Second, 10*time.Millisecond, "the write waits for approval")
	assert.Equal(t, "write_file", pending[0].Tool)
	assert.Contains(t, pending[0].Args, `"path": "notes.md"`)

	// The page asks api/session for its CSRF token, as a browser does.
	code, body := get("api/session")
	require.Equal(t, http.StatusOK, code, body)
	var session dashboard.Session
	require.NoError(t, json.Unmarshal([]byte(body), &session))
	require.NotEmpty(t, session.CSRF)
	req, _ := http.NewRequest(http.MethodPost, base+"api/approvals/"+pending[0].ID, strings.NewReader(`{"action":"approve"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set(dashboard.CSRFHeader, session.CSRF)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)

	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("the agent did not finish after the approval")
	}
	got := out.String()
	assert.Contains(t, got, "dashboard: http://127.0.0.1:")
	assert.Contains(t, got, "write_file(")
	assert.Contains(t, got, "approval: approve by dashboard")
	assert.Contains(t, got, "agent: I wrote notes.md.")
}
