package mcptool

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
)

// The registry refuses a tool whose schema states a default its own
// property refuses (every call that leaves the field out would fail at a
// field the model never sent). A server tool like that is left out of the
// listing, like every tool the registry would refuse, so that it does not
// fail the registration of the server's other tools.
func TestToolWithABadDefaultIsLeftOut(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "sloppy", Version: "v1"}, nil)
	noop := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	srv.AddTool(&mcp.Tool{Name: "bad", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"default":0}}}`)}, noop)
	srv.AddTool(&mcp.Tool{Name: "good", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"default":5}}}`)}, noop)
	c := connectServer(t, srv)
	tools, err := c.Tools(context.Background())
	require.NoError(t, err)
	require.Len(t, tools, 1)
	assert.Equal(t, "good", tools[0].Spec().Name)
	require.Len(t, c.Skipped(), 1)
	assert.Contains(t, c.Skipped()[0].Reason, "a default breaks its own property's schema")
	require.NoError(t, registry.New().Register(tools...))
}
