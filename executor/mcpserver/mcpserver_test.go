package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/mcptool"
)

// stdioEnv makes the test binary serve the fixture registry on stdio
// (through Server.ServeStdio), so the stdio test runs a real subprocess.
const stdioEnv = "MCPSERVER_STDIO_FIXTURE"

func TestMain(m *testing.M) {
	if os.Getenv(stdioEnv) == "1" {
		fx := newFixture()
		srv, err := New(fx.ex)
		if err == nil {
			err = srv.ServeStdio(context.Background())
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

type greetIn struct {
	Name string `json:"name" jsonschema:"minLength=1"`
}
type greetOut struct {
	Greeting string `json:"greeting"`
}

// fixture is a registry of tools that exercise the server, and the
// executor serving it.
type fixture struct {
	reg *registry.Registry
	ex  *executor.Executor

	streamSeen chan struct{} // closed by the test once it saw the output
	blocked    chan struct{} // the block tool is running
	cancelled  chan struct{} // the block tool saw its context end
	guardedRun atomic.Int32
}

func newFixture(exts ...executor.Option) *fixture {
	fx := &fixture{
		reg:        registry.New(),
		streamSeen: make(chan struct{}),
		blocked:    make(chan struct{}, 1),
		cancelled:  make(chan struct{}, 1),
	}
	obj := tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{}}`))
	fx.reg.MustRegister(
		tool.Func("greet", "Greet someone", func(_ context.Context, in greetIn) (greetOut, error) {
			return greetOut{Greeting: "hello " + in.Name}, nil
		}, tool.ReadOnly()),
		tool.New("fail", "Always rate limited", func(context.Context, tool.Call) (*tool.Result, error) {
			return nil, tool.NewError(tool.CodeRateLimited, "too many calls").WithRetryAfter(2 * time.Second)
		}, obj),
		tool.New("stream", "Streams output", func(ctx context.Context, call tool.Call) (*tool.Result, error) {
			tool.EmitOutput(ctx, "stdout", []byte("line 1"))
			tool.EmitOutput(ctx, "progress", []byte(`{"progress":5,"total":10,"message":"half way"}`))
			select {
			case <-fx.streamSeen:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &tool.Result{Content: []tool.Content{tool.TextContent("streamed")}}, nil
		}, obj),
		tool.New("block", "Blocks until cancelled", func(ctx context.Context, call tool.Call) (*tool.Result, error) {
			fx.blocked <- struct{}{}
			<-ctx.Done()
			fx.cancelled <- struct{}{}
			return nil, ctx.Err()
		}, obj),
		tool.New("whoami", "Reports the principal", func(_ context.Context, call tool.Call) (*tool.Result, error) {
			return &tool.Result{Content: []tool.Content{tool.TextContent("principal=" + call.Principal.ID + " roles=" + strings.Join(call.Principal.Roles, ","))}}, nil
		}, obj),
		tool.New("picture", "Returns an image and a link", func(context.Context, tool.Call) (*tool.Result, error) {
			return &tool.Result{Content: []tool.Content{
				{Type: tool.ContentImage, Data: []byte("png"), MIMEType: "image/png"},
				{Type: tool.ContentResourceLink, URI: "file:///x", Name: "x"},
				{Type: tool.ContentResource, URI: "mem://b", MIMEType: "application/octet-stream", Data: []byte{7}},
			}}, nil
		}, obj),
		tool.New("guarded", "Needs a human's approval", func(context.Context, tool.Call) (*tool.Result, error) {
			fx.guardedRun.Add(1)
			return &tool.Result{Content: []tool.Content{tool.TextContent("ran")}}, nil
		}, obj, tool.WithApproval(), tool.WithRisk(tool.RiskHigh)),
		tool.New("pid", "Reports the server's pid", func(context.Context, tool.Call) (*tool.Result, error) {
			return &tool.Result{Content: []tool.Content{tool.TextContent(strconv.Itoa(os.Getpid()))}}, nil
		}, obj),
	)
	opts := append([]executor.Option{executor.WithTimeout(20 * time.Second)}, exts...)
	fx.ex = executor.MustNew(fx.reg, opts...)
	return fx
}

// serve connects srv to a new SDK session over in-memory transports and
// returns the client transport.
func serve(t testing.TB, srv *Server) mcp.Transport {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Server().Connect(context.Background(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Wait() })
	return ct
}

// ourClient connects an mcptool client to srv and returns an executor over
// its tools (the full round trip: executor → mcptool → MCP → mcpserver →
// executor → tool).
func ourClient(t testing.TB, srv *Server, opts ...mcptool.Option) (*mcptool.Client, *executor.Executor, *registry.Registry) {
	t.Helper()
	c, err := mcptool.Connect(context.Background(), mcptool.Transport(serve(t, srv)), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	tools, err := c.Tools(context.Background())
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(tools...))
	return c, executor.MustNew(reg, executor.WithTimeout(20*time.Second)), reg
}

func sdkClient(t testing.TB, tr mcp.Transport, copts *mcp.ClientOptions, sopts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sdk", Version: "v0"}, copts).Connect(context.Background(), tr, sopts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func call(t testing.TB, ex *executor.Executor, name, args string) *tool.Result {
	t.Helper()
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "t-" + name, Name: name, Args: json.RawMessage(args)})
	require.NotNil(t, res)
	return res
}

func TestToolsAreOurExportExactly(t *testing.T) {
	fx := newFixture()
	srv, err := New(fx.ex)
	require.NoError(t, err)
	cs := sdkClient(t, serve(t, srv), nil, nil)
	exp, err := fx.reg.Export(registry.MCP)
	require.NoError(t, err)
	want := map[string]json.RawMessage{}
	for i, n := range exp.Names {
		want[n] = exp.Tools[i]
	}
	n := 0
	for mt, err := range cs.Tools(context.Background(), nil) {
		require.NoError(t, err)
		n++
		var def struct {
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		require.NoError(t, json.Unmarshal(want[mt.Name], &def), mt.Name)
		got, _ := json.Marshal(mt.InputSchema)
		assert.JSONEq(t, string(def.InputSchema), string(got), mt.Name)
		if len(def.OutputSchema) > 0 {
			got, _ = json.Marshal(mt.OutputSchema)
			assert.JSONEq(t, string(def.OutputSchema), string(got), mt.Name)
		}
	}
	assert.Equal(t, len(exp.Names), n)
}

func TestRoundTripThroughOurClient(t *testing.T) {
	fx := newFixture()
	srv, err := New(fx.ex)
	require.NoError(t, err)
	// Our own server: its annotations are trusted (untrusted, a read-only
	// hint is not taken).
	_, ex, reg := ourClient(t, srv, mcptool.WithTrustedAnnotations())

	greet, ok := reg.Lookup("greet")
	require.True(t, ok)
	assert.True(t, greet.Spec.Annotations.ReadOnly, "annotations survive the trip")

	res := call(t, ex, "greet", `{"name":"ada"}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.JSONEq(t, `{"greeting":"hello ada"}`, string(res.Output))
	assert.JSONEq(t, `{"greeting":"hello ada"}`, res.Text(), "structured output is also sent as JSON text")

	// The server's own validation (our schema, our messages) runs; the
	// client validates first with the same schema, so bypass it by calling
	// the SDK session directly below.
	res = call(t, ex, "fail", `{}`)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeRateLimited, res.Error.Code)
	assert.True(t, res.Error.Retryable)
	assert.Equal(t, 2*time.Second, res.Error.RetryAfter, "the exact error comes back through _meta")

	res = call(t, ex, "picture", `{}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, []tool.Content{
		{Type: tool.ContentImage, Data: []byte("png"), MIMEType: "image/png"},
		{Type: tool.ContentResourceLink, URI: "file:///x", Name: "x"},
		{Type: tool.ContentResource, URI: "mem://b", MIMEType: "application/octet-stream", Data: []byte{7}},
	}, res.Content)
}

func TestErrorsAsAModelSeesThem(t *testing.T) {
	fx := newFixture()
	srv, err := New(fx.ex)
	require.NoError(t, err)
	cs := sdkClient(t, serve(t, srv), nil, nil)
	ctx := context.Background()

	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	var je *jsonrpc.Error
	require.ErrorAs(t, err, &je, "an unknown tool is a JSON-RPC error")
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), je.Code)
	// docs/mcp.md says what a client gets for an unknown tool: this.
	doc, err := os.ReadFile("../../docs/mcp.md")
	require.NoError(t, err)
	assert.Contains(t, string(doc), "| an unknown tool, or one the principal may not call (auth) | a JSON-RPC invalid-params error", "docs/mcp.md must name the error an unknown tool gets")

	for _, tc := range []struct {
		name string
		args any
		want string
	}{
		{"greet", map[string]any{"name": ""}, "invalid_arguments: "},
		{"greet", map[string]any{}, "name"},
		{"fail", map[string]any{}, "rate_limited: too many calls (retryable after 2s)"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.name, Arguments: tc.args})
		require.NoError(t, err, tc.name)
		assert.True(t, res.IsError, tc.name)
		require.NotEmpty(t, res.Content)
		text := res.Content[len(res.Content)-1].(*mcp.TextContent).Text
		assert.Contains(t, text, tc.want)
		assert.Contains(t, res.Meta, MetaError)
	}

	// A tool removed from the registry is withdrawn by Sync, and refused as
	// unknown even before that.
	require.True(t, fx.reg.Remove("pid"))
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "pid"})
	require.ErrorAs(t, err, &je)
	require.NoError(t, srv.Sync())
	for mt, err := range cs.Tools(ctx, nil) {
		require.NoError(t, err)
		assert.NotEqual(t, "pid", mt.Name)
	}
}

func TestOutputEventsBecomeProgress(t *testing.T) {
	fx := newFixture()
	srv, err := New(fx.ex)
	require.NoError(t, err)
	_, ex, _ := ourClient(t, srv)

	var mu sync.Mutex
	var got []mcptool.ProgressData
	ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) {
		if ev.Kind != tool.EventOutput {
			return
		}
		var pd mcptool.ProgressData
		if json.Unmarshal(ev.Data, &pd) != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		got = append(got, pd)
		if len(got) == 2 {
			close(fx.streamSeen)
		}
	})
	res, err := ex.Execute(ctx, tool.Call{ID: "s", Name: "stream", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.Equal(t, "streamed", res.Text())
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []mcptool.ProgressData{
		{Progress: 1, Message: "stdout: line 1"},
		{Progress: 5, Total: 10, Message: "half way"},
	}, got)
}

func TestNoProgressTokenNoNotifications(t *testing.T) {
	fx := newFixture()
	close(fx.streamSeen)
	srv, err := New(fx.ex)
	require.NoError(t, err)
	var notes atomic.Int32
	cs := sdkClient(t, serve(t, srv), &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		notes.Add(1)
	}}, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "stream"})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	assert.Zero(t, notes.Load())
}

func TestClientCancellationCancelsTheCall(t *testing.T) {
	fx := newFixture()
	srv, err := New(fx.ex)
	require.NoError(t, err)
	_, ex, _ := ourClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *tool.Result, 1)
	go func() {
		res, _ := ex.Execute(ctx, tool.Call{ID: "b", Name: "block", Args: json.RawMessage(`{}`)})
		done <- res
	}()
	<-fx.blocked
	cancel()
	res := <-done
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeCancelled, res.Error.Code)
	select {
	case <-fx.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the backend on the server was not cancelled")
	}
}

func TestPrincipal(t *testing.T) {
	fx := newFixture()
	anon, err := New(fx.ex)
	require.NoError(t, err)
	_, ex, _ := ourClient(t, anon)
	assert.Equal(t, "principal= roles=", call(t, ex, "whoami", `{}`).Text())

	named, err := New(fx.ex, WithPrincipal(func(_ context.Context, req *mcp.CallToolRequest) tool.Principal {
		return tool.Principal{ID: "alice", Roles: []string{"admin"}}
	}))
	require.NoError(t, err)
	_, ex, _ = ourClient(t, named)
	assert.Equal(t, "principal=alice roles=admin", call(t, ex, "whoami", `{}`).Text())
}

func TestFilterAndPageSize(t *testing.T) {
	fx := newFixture()
	srv, err := New(fx.ex, WithPageSize(1), WithFilter(registry.Filter{Names: []string{"greet", "pid", "fail"}}))
	require.NoError(t, err)
	c, _, reg := ourClient(t, srv)
	_ = c
	assert.ElementsMatch(t, []string{"greet", "pid", "fail"}, reg.Names())
	cs := sdkClient(t, serve(t, srv), nil, nil)
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
	var je *jsonrpc.Error
	assert.ErrorAs(t, err, &je, "a filtered-out tool is unknown")

	_, err = New(fx.ex, WithPageSize(-1))
	assert.ErrorContains(t, err, "page size")
	_, err = New(nil)
	assert.ErrorContains(t, err, "executor is nil")
}

func TestElicitationApproval(t *testing.T) {
	for _, tc := range []struct {
		name     string
		protocol string // "" is the SDK's latest (multi round-trip)
		answer   *mcp.ElicitResult
		noElicit bool
		ran      bool
		text     string
	}{
		{name: "approve/latest", answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, ran: true, text: "ran"},
		{name: "approve/2025-06-18", protocol: "2025-06-18", answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, ran: true, text: "ran"},
		{name: "refuse/latest", answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": false}}, text: "approval_denied: "},
		{name: "decline/2025-06-18", protocol: "2025-06-18", answer: &mcp.ElicitResult{Action: "decline"}, text: "declined"},
		{name: "cancel/latest", answer: &mcp.ElicitResult{Action: "cancel"}, text: "dismissed"},
		{name: "no capability", noElicit: true, text: "approval_denied: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ext := approvalgate.New(Approver{})
			fx := newFixture(executor.WithExtensions(ext, ext.Guard()))
			srv, err := New(fx.ex)
			require.NoError(t, err)
			var asked atomic.Int32
			var copts mcp.ClientOptions
			if !tc.noElicit {
				copts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					assert.Contains(t, req.Params.Message, `"guarded"`)
					return tc.answer, nil
				}
			}
			cs := sdkClient(t, serve(t, srv), &copts, &mcp.ClientSessionOptions{ProtocolVersion: tc.protocol})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "guarded", Arguments: map[string]any{}})
			require.NoError(t, err)
			require.NotEmpty(t, res.Content)
			assert.Contains(t, res.Content[len(res.Content)-1].(*mcp.TextContent).Text, tc.text)
			assert.Equal(t, !tc.ran, res.IsError)
			assert.Equal(t, tc.ran, fx.guardedRun.Load() == 1)
			if tc.noElicit {
				assert.Zero(t, asked.Load())
			} else {
				assert.Equal(t, int32(1), asked.Load(), "the human is asked once")
			}
		})
	}
}

func TestElicitOutsideAServedCall(t *testing.T) {
	_, err := Elicit(context.Background(), "x", &mcp.ElicitParams{Message: "?"})
	assert.True(t, errors.Is(err, ErrNoElicitation))
}

func TestStreamableHTTPStateless(t *testing.T) {
	fx := newFixture()
	srv, err := New(fx.ex)
	require.NoError(t, err)
	hs := httptest.NewServer(srv.HTTPHandler())
	defer hs.Close()
	defer hs.CloseClientConnections()

	// Our client (latest protocol).
	c, err := mcptool.Connect(context.Background(), mcptool.HTTP(hs.URL))
	require.NoError(t, err)
	defer c.Close()
	tools, err := c.Tools(context.Background())
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(tools...))
	ex := executor.MustNew(reg)
	res := call(t, ex, "greet", `{"name":"http"}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.JSONEq(t, `{"greeting":"hello http"}`, string(res.Output))

	// An SDK client of an older revision.
	for _, v := range []string{"2025-03-26", "2025-06-18"} {
		cs := sdkClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1, DisableStandaloneSSE: true}, nil, &mcp.ClientSessionOptions{ProtocolVersion: v})
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": v}})
		require.NoError(t, err, v)
		assert.False(t, r.IsError, v)
		b, _ := json.Marshal(r.StructuredContent)
		assert.JSONEq(t, `{"greeting":"hello `+v+`"}`, string(b))
		require.NoError(t, cs.Close())
	}
}

func TestStdioSubprocess(t *testing.T) {
	c, err := mcptool.Connect(context.Background(), mcptool.Command(func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), stdioEnv+"=1")
		return cmd
	}), mcptool.WithTerminateTimeout(2*time.Second))
	require.NoError(t, err)
	defer c.Close()
	tools, err := c.Tools(context.Background())
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(tools...))
	ex := executor.MustNew(reg)

	res := call(t, ex, "greet", `{"name":"stdio"}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.JSONEq(t, `{"greeting":"hello stdio"}`, string(res.Output))
	res = call(t, ex, "pid", `{}`)
	require.True(t, res.OK(), "%v", res.Error)
	pid := c.PID()
	assert.Equal(t, strconv.Itoa(pid), res.Text())
	require.NoError(t, c.Close())
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the server process is gone after Close")
}
