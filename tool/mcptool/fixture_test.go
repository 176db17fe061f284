package mcptool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// fixtureEnv makes the test binary run the fixture server on stdio, so the
// stdio tests start a real subprocess without building anything.
const fixtureEnv = "MCPTOOL_FIXTURE_SERVER"

func TestMain(m *testing.M) {
	switch os.Getenv(fixtureEnv) {
	case "1":
		f := newFixture(0)
		if err := f.srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "tasks":
		// taskServer, whose tools/list says how each tool runs as a task.
		if err := taskServer().Run(context.Background(), executionTransport{&mcp.StdioTransport{}}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// fixture is an MCP server built directly with the SDK that exercises
// everything a client must map: every content type, structured output that
// breaks its schema, isError in its various wordings, JSON-RPC errors,
// progress (during and after the call), cancellation, and a slow call.
type fixture struct {
	srv *mcp.Server

	// progressSeen is closed by the test once it has seen the in-call
	// notifications; lateGo lets the handler send one after its result.
	progressSeen chan struct{}
	lateGo       chan struct{}
	lateWG       sync.WaitGroup

	started   chan struct{} // a slow call has begun
	cancelled chan struct{} // a slow call saw its context end
}

type echoIn struct {
	Text string `json:"text"`
}
type echoOut struct {
	Echo string `json:"echo"`
}

func newFixture(pageSize int) *fixture {
	f := &fixture{
		progressSeen: make(chan struct{}),
		lateGo:       make(chan struct{}),
		started:      make(chan struct{}, 1),
		cancelled:    make(chan struct{}, 1),
	}
	f.srv = mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "v0"}, &mcp.ServerOptions{PageSize: pageSize})
	obj := json.RawMessage(`{"type":"object"}`)

	mcp.AddTool(f.srv, &mcp.Tool{Name: "echo", Description: "Echo text", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
			return nil, echoOut{Echo: in.Text}, nil
		})

	f.srv.AddTool(&mcp.Tool{Name: "contents", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "hello"},
			&mcp.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"},
			&mcp.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"},
			&mcp.ResourceLink{URI: "file:///tmp/a.txt", Name: "a.txt", Title: "A", MIMEType: "text/plain"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://doc", MIMEType: "text/markdown", Text: "# doc"}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://bin", MIMEType: "application/octet-stream", Blob: []byte{1, 2, 3}}},
		}}, nil
	})

	f.srv.AddTool(&mcp.Tool{Name: "bad_output", InputSchema: obj,
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: map[string]any{"n": "not a number"}, Content: []mcp.Content{&mcp.TextContent{Text: `{"n":"not a number"}`}}}, nil
		})

	isError := func(name, text string) {
		f.srv.AddTool(&mcp.Tool{Name: name, InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	isError("fail", "the disk is full")
	isError("fail_unknown", `unknown tool "ghost"`)
	isError("fail_args", `validating "arguments": missing required property "path"`)
	isError("fail_coded", "rate_limited: slow down")

	f.srv.AddTool(&mcp.Tool{Name: "rpc_args", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "count must be positive"}
	})

	f.srv.AddTool(&mcp.Tool{Name: "progress", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tok := req.Params.GetProgressToken()
		for i := 1; i <= 3; i++ {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 4, Message: fmt.Sprintf("step %d", i)})
		}
		select {
		case <-f.progressSeen:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		f.lateWG.Add(1)
		go func() {
			defer f.lateWG.Done()
			<-f.lateGo
			_ = req.Session.NotifyProgress(context.Background(), &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 4, Total: 4, Message: "late"})
		}()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})

	f.srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Message: "started"})
		}
		select {
		case f.started <- struct{}{}:
		default:
		}
		select {
		case <-ctx.Done():
			select {
			case f.cancelled <- struct{}{}:
			default:
			}
			return nil, ctx.Err()
		case <-time.After(time.Minute):
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slept"}}}, nil
		}
	})

	f.srv.AddTool(&mcp.Tool{Name: "pid", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(os.Getpid())}}}, nil
	})
	return f
}

// connectInMemory connects a Client to f over in-memory transports (the
// server first) and closes both at the end of the test.
func connectInMemory(t testing.TB, f *fixture, opts ...Option) *Client {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	c, err := Connect(ctx, Transport(ct), opts...)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = c.Close()
		_ = ss.Wait()
		f.lateWG.Wait()
	})
	return c
}
