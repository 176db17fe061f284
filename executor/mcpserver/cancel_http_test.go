package mcpserver

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// A client that cancels a call over streamable HTTP must stop the backend,
// for both protocol eras (2025-11-25 and 2026-07-28). The cancellation is a
// notification sent on another request; only a session can route it to
// the running call, so it takes the Stateful handler (the stateless one,
// the only handler before, let the cancelled call run on to "succeeded").
func TestHTTPCancellationReachesTheBackend(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version string
		handler func(*Server) *httptest.Server
	}{
		{"2025-11-25 over the stateful handler", "2025-11-25", func(s *Server) *httptest.Server { return httptest.NewServer(s.HTTPHandler(Stateful())) }},
		{"2026-07-28 over the stateful handler", "2026-07-28", func(s *Server) *httptest.Server { return httptest.NewServer(s.HTTPHandler(Stateful())) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture()
			srv, err := New(fx.ex)
			require.NoError(t, err)
			hs := tc.handler(srv)
			defer hs.Close()
			defer hs.CloseClientConnections()
			cs := sdkClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil, &mcp.ClientSessionOptions{ProtocolVersion: tc.version})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
				done <- err
			}()
			select {
			case <-fx.blocked:
			case <-time.After(10 * time.Second):
				t.Fatal("the call never started")
			}
			cancel()
			require.Error(t, <-done)
			select {
			case <-fx.cancelled:
			case <-time.After(10 * time.Second):
				t.Fatal("the backend on the server was not cancelled: the call ran on")
			}
			require.NoError(t, cs.Close(), "ends the session on the server too")
		})
	}
}
