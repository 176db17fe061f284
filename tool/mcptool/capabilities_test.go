package mcptool_test

//lint:file-ignore SA1019 roots and sampling are deprecated as of MCP 2026-07-28 (SEP-2577), but servers of earlier revisions still ask for them: WithRoots and WithSampling serve those.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/mcptool"
)

// askingServer is an official-SDK server whose tools ask the client things
// (roots, sampling, elicitation) and return rich content, served over
// stateful streamable HTTP.
func askingServer(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "asking", Version: "v1"}, nil)
	obj := map[string]any{"type": "object"}
	srv.AddTool(&mcp.Tool{Name: "roots", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if caps := req.Session.InitializeParams().Capabilities; caps == nil || caps.RootsV2 == nil {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "client has no roots"}}}, nil
		}
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return nil, err
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(uris, ",")}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "sample", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{res.Content}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "proceed?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action}}}, nil
	})
	size := int64(1234)
	srv.AddTool(&mcp.Tool{Name: "rich", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Meta: mcp.Meta{"trace": "abc"},
			Content: []mcp.Content{
				&mcp.TextContent{Text: "for the user", Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: 0.9}, Meta: mcp.Meta{"k": "v"}},
				&mcp.ResourceLink{URI: "file:///r.txt", Name: "r.txt", Title: "R", Description: "a report", Size: &size, MIMEType: "text/plain"},
			},
		}, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

func executorFor(t *testing.T, c *mcptool.Client) *executor.Executor {
	t.Helper()
	tools, err := c.Tools(context.Background())
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(tools...))
	return executor.MustNew(reg)
}

func run(t *testing.T, ex *executor.Executor, name string) *tool.Result {
	t.Helper()
	res, _ := ex.Execute(context.Background(), tool.Call{ID: name, Name: name, Args: json.RawMessage(`{}`)})
	return res
}

// The client advertises only what it serves; with handlers it answers the
// server's roots, sampling and elicitation requests over HTTP (it used to
// advertise roots with no stream to receive the request, and hang).
func TestClientCapabilitiesAndHandlers(t *testing.T) {
	url := askingServer(t)

	plain, err := mcptool.Connect(context.Background(), mcptool.HTTP(url))
	require.NoError(t, err)
	defer plain.Close()
	res := run(t, executorFor(t, plain), "roots")
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, "client has no roots", res.Text(), "no roots advertised, none asked for")

	c, err := mcptool.Connect(context.Background(), mcptool.HTTP(url),
		mcptool.WithRoots(&mcp.Root{URI: "file:///work", Name: "work"}),
		mcptool.WithSampling(func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "sampled"}}, nil
		}),
		mcptool.WithElicitation(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
		}))
	require.NoError(t, err)
	defer c.Close()
	ex := executorFor(t, c)
	for name, want := range map[string]string{"roots": "file:///work", "sample": "sampled", "ask": "accept"} {
		res := run(t, ex, name)
		require.True(t, res.OK(), "%s: %v", name, res.Error)
		assert.Equal(t, want, res.Text(), name)
	}
}

// Content annotations, _meta and a resource link's title, description and
// size survive the client (they were dropped).
func TestRichContentKept(t *testing.T) {
	c, err := mcptool.Connect(context.Background(), mcptool.HTTP(askingServer(t)))
	require.NoError(t, err)
	defer c.Close()
	res := run(t, executorFor(t, c), "rich")
	require.True(t, res.OK(), "%v", res.Error)
	require.Len(t, res.Content, 2)
	txt, link := res.Content[0], res.Content[1]
	require.NotNil(t, txt.Annotations)
	assert.Equal(t, []string{"user"}, txt.Annotations.Audience)
	assert.InDelta(t, 0.9, txt.Annotations.Priority, 1e-9)
	assert.Equal(t, "v", txt.Meta["k"])
	assert.Equal(t, "R", link.Title)
	assert.Equal(t, "a report", link.Description)
	assert.EqualValues(t, 1234, link.Size)
	assert.Equal(t, map[string]any{"trace": "abc"}, res.Metadata[mcptool.MetaResultMeta])
}
