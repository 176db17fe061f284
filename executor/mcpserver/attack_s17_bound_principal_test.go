package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// newRawSessionAs is newRawSession for a client that names itself name.
func newRawSessionAs(t *testing.T, s *Server, name string) *rawSession {
	t.Helper()
	ct := serve(t, s)
	conn, err := ct.Connect(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	r := &rawSession{conn: conn}
	r.send(t, 0, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"`+name+`","version":"v0"}}`)
	resp, ok := r.read(t).(*jsonrpc.Response)
	require.True(t, ok)
	require.Nil(t, resp.Error)
	require.NoError(t, conn.Write(context.Background(), &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}))
	return r
}

// The bound on requests in progress is per principal, but requests other
// than tools/call were counted as the principal of their context alone,
// while calls are counted as the PrincipalFunc names them: where a
// PrincipalFunc names the principals (a token, a proxy's header), every
// listen, tools/list or resources/read of every user was anonymous's, and
// one user parking WithMaxCallsInProgress subscriptions/listen requests
// left every other user's tools/list refused. Such a request is now
// counted as the principal a call on it would run as. (The PrincipalFunc
// here names the client by its session, as over stdio there are no
// headers; PrincipalFromHeader and PrincipalFromToken read req.Extra,
// which the SDK sets on every request.)
func TestAttackS17OneUsersListensDoNotRefuseAnothersRequests(t *testing.T) {
	const bound = 2
	h := newHolder(1)
	bySession := func(_ context.Context, req *mcp.CallToolRequest) tool.Principal {
		return tool.Principal{ID: req.Session.InitializeParams().ClientInfo.Name}
	}
	s, err := New(h.ex, WithMaxCallsInProgress(bound), WithPrincipal(bySession))
	require.NoError(t, err)
	mallory := newRawSessionAs(t, s, "mallory")
	for i := range bound + 1 {
		mallory.send(t, int64(1+i), "subscriptions/listen", `{"notifications":{"toolsListChanged":true}}`)
	}
	var parked, refused int
	for parked+refused < bound+1 {
		switch m := mallory.read(t).(type) {
		case *jsonrpc.Request:
			parked++
		case *jsonrpc.Response:
			require.NotNil(t, m.Error, "a listen is answered only when it ends")
			refused++
		}
	}
	require.Equal(t, bound, parked, "mallory's own bound holds")
	// A parked listen took its place before it was acknowledged.
	assert.Equal(t, bound, inProgress(s, user{id: "mallory"}), "mallory's listens are counted as mallory's")

	alice := newRawSessionAs(t, s, "alice")
	alice.send(t, 1, "tools/list", `{}`)
	resp, ok := alice.read(t).(*jsonrpc.Response)
	require.True(t, ok)
	assert.Nil(t, resp.Error, "mallory's listens refused alice's tools/list")
}
