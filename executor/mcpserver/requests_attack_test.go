package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawSession is a client that speaks JSON-RPC to the server itself, over
// an in-memory transport (as over stdio), to send what the SDK's client
// would not.
type rawSession struct {
	conn mcp.Connection
}

func newRawSession(t *testing.T, s *Server) *rawSession {
	t.Helper()
	ct := serve(t, s)
	conn, err := ct.Connect(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	r := &rawSession{conn: conn}
	r.send(t, 0, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"v0"}}`)
	resp, ok := r.read(t).(*jsonrpc.Response)
	require.True(t, ok)
	require.Nil(t, resp.Error)
	require.NoError(t, conn.Write(context.Background(), &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}))
	return r
}

func (r *rawSession) send(t *testing.T, id int64, method, params string) {
	t.Helper()
	rid, err := jsonrpc.MakeID(float64(id))
	require.NoError(t, err)
	require.NoError(t, r.conn.Write(context.Background(), &jsonrpc.Request{ID: rid, Method: method, Params: json.RawMessage(params)}))
}

func (r *rawSession) read(t *testing.T) jsonrpc.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	msg, err := r.conn.Read(ctx)
	require.NoError(t, err)
	return msg
}

// inProgress is how many places u holds on s.
func inProgress(s *Server, u user) int {
	s.calls.mu.Lock()
	defer s.calls.mu.Unlock()
	return s.calls.n[u]
}

// A subscriptions/listen request is answered only when the client cancels
// it: the SDK parks its goroutine until then (go-sdk v1.8.0,
// Server.subscriptionsListen), over stdio and HTTP alike. One client
// sending many held as many goroutines as it liked, past the bound on
// calls in progress, which counted tools/call only. Every request but a
// ping or an initialize counts against the principal's bound.
func TestAttackListenFloodIsBoundedPerPrincipal(t *testing.T) {
	const bound, n = 4, 10
	h := newHolder(n)
	s, err := New(h.ex, WithMaxCallsInProgress(bound))
	require.NoError(t, err)
	r := newRawSession(t, s)
	for i := range n {
		r.send(t, int64(1+i), "subscriptions/listen", `{"notifications":{"toolsListChanged":true}}`)
	}
	var parked int
	var refused []*jsonrpc.Response
	refusedIDs := map[any]bool{}
	for parked+len(refused) < n {
		switch m := r.read(t).(type) {
		case *jsonrpc.Request:
			require.Equal(t, "notifications/subscriptions/acknowledged", m.Method)
			parked++
		case *jsonrpc.Response:
			require.NotNil(t, m.Error, "a listen is answered only when it ends")
			refused = append(refused, m)
			refusedIDs[m.ID.Raw()] = true
		}
	}
	require.Equal(t, bound, parked, "one client parks at most %d requests", bound)
	for _, resp := range refused {
		assert.Contains(t, resp.Error.Error(), "4 requests in progress")
		assert.Contains(t, resp.Error.Error(), "WithMaxCallsInProgress")
	}

	// At the bound, a ping is still answered (a keepalive that failed
	// would close the session), and a tools/call is refused as over it.
	r.send(t, 100, "ping", `{}`)
	resp, ok := r.read(t).(*jsonrpc.Response)
	require.True(t, ok)
	require.Nil(t, resp.Error, "a ping is answered at the bound")
	r.send(t, 101, "tools/call", `{"name":"noop","arguments":{}}`)
	resp, ok = r.read(t).(*jsonrpc.Response)
	require.True(t, ok)
	require.Nil(t, resp.Error)
	assert.Contains(t, string(resp.Result), "concurrency_limit")

	// A cancelled listen gives its place back. Which of the n are parked
	// is the server's goroutines' race: one that was not refused is.
	held := int64(0)
	for i := int64(1); i <= n && held == 0; i++ {
		if !refusedIDs[i] {
			held = i
		}
	}
	require.NotZero(t, held)
	require.NoError(t, r.conn.Write(context.Background(), &jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(fmt.Sprintf(`{"requestId":%d}`, held))}))
	// A poll: the SDK handles the cancel notification on its connection's goroutine, which signals nothing.
	require.Eventually(t, func() bool { return inProgress(s, user{}) == bound-1 }, 60*time.Second, 10*time.Millisecond)
}
