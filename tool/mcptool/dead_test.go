package mcptool

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// An MCP server over HTTP that goes away is unavailable (retryable), not an
// internal error: retry and failover can act on it. The server's own errors
// keep their codes (TestErrorsMapped).
func TestDeadHTTPServerIsUnavailable(t *testing.T) {
	f := newFixture(0)
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	c, err := Connect(context.Background(), HTTP(srv.URL))
	require.NoError(t, err)
	defer c.Close()
	ex, _ := executorFor(t, c)
	res := run(t, ex, "echo", `{"text":"hi"}`)
	require.True(t, res.OK(), "%v", res.Error)

	srv.CloseClientConnections()
	srv.Close()
	res = run(t, ex, "echo", `{"text":"again"}`)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeUnavailable, res.Error.Code, res.Error.Message)
	assert.True(t, res.Error.Retryable)
}
