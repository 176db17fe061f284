package mcpserver

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// liveSessions counts the server's open sessions.
func liveSessions(s *Server) int {
	n := 0
	for range s.Server().Sessions() {
		n++
	}
	return n
}

// A hostile client opens stateful sessions and never closes them (no
// DELETE, no further request). The SDK closes idle sessions only when
// SessionTimeout is set, and it is zero by default: every session, its
// goroutines and its owner binding lived as long as the process. Stateful
// gives sessions an idle timeout by default.
func TestAttackAbandonedStatefulSessionsExpire(t *testing.T) {
	old := defaultSessionTimeout
	defaultSessionTimeout = 200 * time.Millisecond
	t.Cleanup(func() { defaultSessionTimeout = old })

	reg := registry.New()
	reg.MustRegister(tool.Func("noop", "Do nothing", func(context.Context, struct{}) (string, error) { return "ok", nil }, tool.ReadOnly()))
	s, err := New(executor.MustNew(reg))
	require.NoError(t, err)
	hs := httptest.NewServer(s.HTTPHandler(Stateful()))
	t.Cleanup(hs.Close)

	ctx := context.Background()
	for range 20 {
		c := mcp.NewClient(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.Close() }) // the test's own goroutines
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{}})
		require.NoError(t, err)
		// Abandoned: never closed.
	}
	require.Equal(t, 20, liveSessions(s))
	require.Eventually(t, func() bool { return liveSessions(s) == 0 }, 5*time.Second, 20*time.Millisecond,
		"abandoned sessions must be closed once idle; %d still open", liveSessions(s))
}
