package mcptool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The executor caps a result's text and bytes (1 MiB by default), not a
// block's other fields or its metadata: a hostile server put megabytes in
// a resource link's name and URI (the model reads "[resource NAME URI]"),
// in _meta (kept in the result's metadata, for audit records and logs), or
// sent 30,000 small blocks, and all of it went past the cap.
func TestAttackResultFieldsTheOutputCapDoesNotCountAreBounded(t *testing.T) {
	big := strings.Repeat("n", 300<<10)
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "links", Description: "d", InputSchema: openObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ResourceLink{Name: big, URI: "file:///" + big, Title: big, Description: big, MIMEType: big},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://" + big, Text: "t"}},
			&mcp.TextContent{Text: "x", Annotations: &mcp.Annotations{LastModified: big}, Meta: mcp.Meta{"k": big}},
		}, Meta: mcp.Meta{"k": big}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "many", Description: "d", InputSchema: openObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		blocks := make([]mcp.Content, 30000)
		for i := range blocks {
			blocks[i] = &mcp.ResourceLink{Name: "n", URI: "file:///a"}
		}
		return &mcp.CallToolResult{Content: blocks}, nil
	})
	c := connectServer(t, srv)
	tools, err := c.Tools(context.Background())
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(tools...))
	ex := executor.MustNew(reg, executor.WithTimeout(30*time.Second))
	for _, name := range []string{"links", "many"} {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: name, Args: json.RawMessage(`{}`)})
		require.NotNil(t, res)
		require.Nil(t, res.Error, name)
		b, err := json.Marshal(res)
		require.NoError(t, err)
		assert.Less(t, len(b), 1<<20, "%s: the result encodes to %d bytes", name, len(b))
	}
}
