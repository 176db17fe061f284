package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// executorFor registers c's tools and returns an executor over them.
func executorFor(t *testing.T, c *Client) (*executor.Executor, *registry.Registry) {
	t.Helper()
	tools, err := c.Tools(context.Background())
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(tools...))
	return executor.MustNew(reg, executor.WithTimeout(20*time.Second)), reg
}

func run(t *testing.T, ex *executor.Executor, name, args string) *tool.Result {
	t.Helper()
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c-" + name, Name: name, Args: json.RawMessage(args)})
	require.NotNil(t, res)
	return res
}

func TestContentTypesMapped(t *testing.T) {
	c := connectInMemory(t, newFixture(0))
	ex, _ := executorFor(t, c)
	res := run(t, ex, "contents", `{}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, []tool.Content{
		{Type: tool.ContentText, Text: "hello"},
		{Type: tool.ContentImage, Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"},
		{Type: tool.ContentAudio, Data: []byte("RIFF"), MIMEType: "audio/wav"},
		{Type: tool.ContentResourceLink, URI: "file:///tmp/a.txt", Name: "a.txt", Title: "A", MIMEType: "text/plain"},
		{Type: tool.ContentResource, URI: "mem://doc", MIMEType: "text/markdown", Text: "# doc"},
		{Type: tool.ContentResource, URI: "mem://bin", MIMEType: "application/octet-stream", Data: []byte{1, 2, 3}},
	}, res.Content)
}

func TestStructuredOutputValidatedAgainstRemoteSchema(t *testing.T) {
	// Trusted, so the read-only echo is low risk (see
	// TestReadOnlyClaimDoesNotSkipApproval for the untrusted default).
	c := connectInMemory(t, newFixture(0), WithTrustedAnnotations())
	ex, reg := executorFor(t, c)

	echo, ok := reg.Lookup("echo")
	require.True(t, ok)
	assert.NotEmpty(t, echo.Spec.OutputSchema, "the remote outputSchema becomes the spec's")
	assert.True(t, echo.Spec.Annotations.ReadOnly)
	assert.Equal(t, tool.RiskLow, echo.Spec.Risk)

	res := run(t, ex, "echo", `{"text":"hi"}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.JSONEq(t, `{"echo":"hi"}`, string(res.Output))

	res = run(t, ex, "bad_output", `{}`)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeInvalidOutput, res.Error.Code, res.Error.Message)
	assert.Contains(t, res.Error.Message, "n")
}

func TestErrorsMapped(t *testing.T) {
	c := connectInMemory(t, newFixture(0))
	ex, reg := executorFor(t, c)
	ghost, err := c.Tool("ghost", tool.Spec{Name: "ghost", Description: "A tool the server does not have"})
	require.NoError(t, err)
	require.NoError(t, reg.Register(ghost))

	for _, tc := range []struct {
		tool, text string
		code       tool.Code
		retryable  bool
	}{
		{"fail", "the disk is full", tool.CodeInternal, false},
		{"fail_unknown", `unknown tool "ghost"`, tool.CodeNotFound, false},
		{"fail_args", "missing required property", tool.CodeInvalidArguments, false},
		{"fail_coded", "slow down", tool.CodeRateLimited, true},
		{"rpc_args", "count must be positive", tool.CodeInvalidArguments, false},
		{"ghost", "ghost", tool.CodeNotFound, false}, // JSON-RPC "unknown tool" from the SDK server
	} {
		t.Run(tc.tool, func(t *testing.T) {
			res := run(t, ex, tc.tool, `{}`)
			require.NotNil(t, res.Error)
			assert.Equal(t, tc.code, res.Error.Code)
			assert.Equal(t, tc.code.Status(), res.Status)
			assert.Contains(t, res.Error.Message, tc.text)
			assert.Equal(t, tc.retryable, res.Error.Retryable)
		})
	}
}

func TestProgressBecomesOutputEventsAndLateProgressIsHandled(t *testing.T) {
	f := newFixture(0)
	late := make(chan Progress, 1)
	c := connectInMemory(t, f, OnLateProgress(func(p Progress) { late <- p }))
	ex, _ := executorFor(t, c)

	var mu sync.Mutex
	var got []ProgressData
	ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) {
		if ev.Kind != tool.EventOutput || ev.Stream != "progress" {
			return
		}
		var pd ProgressData
		if json.Unmarshal(ev.Data, &pd) != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		got = append(got, pd)
		if len(got) == 3 {
			close(f.progressSeen)
		}
	})
	res, err := ex.Execute(ctx, tool.Call{ID: "p1", Name: "progress", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.Equal(t, "done", res.Text())
	mu.Lock()
	assert.Equal(t, []ProgressData{{1, 4, "step 1"}, {2, 4, "step 2"}, {3, 4, "step 3"}}, got)
	mu.Unlock()

	close(f.lateGo) // the server now notifies after its result
	select {
	case p := <-late:
		assert.Equal(t, Progress{Tool: "progress", CallID: "p1", Token: p.Token, Progress: 4, Total: 4, Message: "late"}, p)
	case <-time.After(10 * time.Second):
		t.Fatal("late progress never reached OnLateProgress")
	}
}

func TestCancellingTheCallCancelsTheRemoteCall(t *testing.T) {
	f := newFixture(0)
	c := connectInMemory(t, f)
	ex, _ := executorFor(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *tool.Result, 1)
	go func() {
		res, _ := ex.Execute(ctx, tool.Call{ID: "s", Name: "slow", Args: json.RawMessage(`{}`)})
		done <- res
	}()
	<-f.started
	cancel()
	res := <-done
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeCancelled, res.Error.Code)
	select {
	case <-f.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the server's handler was not cancelled")
	}
	// The session survives a cancelled call.
	assert.JSONEq(t, `{"echo":"x"}`, string(run(t, ex, "echo", `{"text":"x"}`).Output))
}

func TestToolsFollowsEveryPage(t *testing.T) {
	f := newFixture(1)
	var lists atomic.Int32
	f.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	c := connectInMemory(t, f)
	tools, err := c.Tools(context.Background())
	require.NoError(t, err)
	names := map[string]bool{}
	for _, tl := range tools {
		names[tl.Spec().Name] = true
	}
	assert.Len(t, names, 11)
	for _, n := range []string{"echo", "contents", "bad_output", "fail", "rpc_args", "progress", "slow", "pid"} {
		assert.True(t, names[n], n)
	}
	assert.GreaterOrEqual(t, int(lists.Load()), 11, "page size 1 means one tools/list per tool")
}

func TestPrefixKeepsTwoServersApart(t *testing.T) {
	a := connectInMemory(t, newFixture(0), WithPrefix("a_"))
	b := connectInMemory(t, newFixture(0), WithPrefix("b_"), WithSpec(func(s *tool.Spec) { s.Category = "b" }))
	reg := registry.New()
	for _, c := range []*Client{a, b} {
		tools, err := c.Tools(context.Background())
		require.NoError(t, err)
		require.NoError(t, reg.Register(tools...))
	}
	ex := executor.MustNew(reg)
	res := run(t, ex, "b_echo", `{"text":"from b"}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.JSONEq(t, `{"echo":"from b"}`, string(res.Output))
	spec, ok := reg.Lookup("b_echo")
	require.True(t, ok)
	assert.Equal(t, "b", spec.Spec.Category)
	_, ok = reg.Lookup("a_echo")
	assert.True(t, ok)
}

func TestBadPrefixAndTarget(t *testing.T) {
	_, err := Connect(context.Background(), Target{})
	assert.ErrorContains(t, err, "empty Target")
	_, err = Connect(context.Background(), HTTP(""), WithPrefix("9"))
	assert.ErrorContains(t, err, "prefix")
	_, err = Connect(context.Background(), HTTP(""))
	assert.ErrorContains(t, err, "empty URL")
	assert.Equal(t, "a_b_c", portable("a.b/c"))
	assert.Equal(t, "_9lives", portable("9lives"))
}

// fixtureCommand starts this test binary as the fixture stdio server.
func fixtureCommand() *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fixtureEnv+"=1")
	return cmd
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestStdioServerKilledMidCallIsUnavailableAndReconnects(t *testing.T) {
	ctx := context.Background()
	started := make(chan struct{}, 1)
	c, err := Connect(ctx, Command(fixtureCommand), WithTerminateTimeout(2*time.Second))
	require.NoError(t, err)
	defer c.Close()
	ex, _ := executorFor(t, c)

	pid1 := c.PID()
	require.NotZero(t, pid1)
	res := run(t, ex, "pid", `{}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, strconv.Itoa(pid1), res.Text())

	// Kill the server while a call is in flight (it reports "started" as
	// progress once its handler runs).
	done := make(chan *tool.Result, 1)
	go func() {
		cctx := tool.WithEmitter(ctx, func(ev tool.Event) {
			if ev.Kind == tool.EventOutput {
				select {
				case started <- struct{}{}:
				default:
				}
			}
		})
		res, _ := ex.Execute(cctx, tool.Call{ID: "k", Name: "slow", Args: json.RawMessage(`{}`)})
		done <- res
	}()
	<-started
	require.NoError(t, syscall.Kill(pid1, syscall.SIGKILL))
	res = <-done
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeUnavailable, res.Error.Code, res.Error.Message)
	assert.True(t, res.Error.Retryable)
	assert.True(t, errors.Is(res.Error, tool.ErrUnavailable))

	// The next call starts a new server.
	res = run(t, ex, "pid", `{}`)
	require.True(t, res.OK(), "%v", res.Error)
	pid2 := c.PID()
	assert.NotEqual(t, pid1, pid2)
	assert.Equal(t, strconv.Itoa(pid2), res.Text())
	assert.False(t, alive(pid1), "the killed server is reaped")

	require.NoError(t, c.Close())
	assert.False(t, alive(pid2), "Close ends the server process")
	assert.Zero(t, c.PID())
	res = run(t, ex, "pid", `{}`)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeUnavailable, res.Error.Code)
}

func TestKindFactory(t *testing.T) {
	pool := NewPool(WithTerminateTimeout(2 * time.Second))
	kind := Kind(pool)
	for _, tc := range []struct{ impl, want string }{
		{`{}`, `set "command"`},
		{`{"command":"x","url":"http://127.0.0.1:1"}`, "both set"},
		{`{"url":"http://127.0.0.1:1","args":["a"]}`, "apply to \"command\" only"},
		{`{"command":"x","tools":"typo"}`, "unknown field"},
		{`[1]`, "impl"},
	} {
		_, err := kind(tool.Spec{Name: "t"}, json.RawMessage(tc.impl))
		assert.ErrorContains(t, err, tc.want, tc.impl)
	}

	impl, _ := json.Marshal(Impl{Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: map[string]string{fixtureEnv: "1"}, Tool: "echo"})
	spec := tool.Spec{Name: "file_echo", Description: "echo from a spec file",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"echo":{"type":"string"}},"required":["echo"]}`)}
	echo, err := kind(spec, impl)
	require.NoError(t, err)
	spec.Name, spec.OutputSchema = "file_pid", nil
	spec.InputSchema = nil
	implPid, _ := json.Marshal(Impl{Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: map[string]string{fixtureEnv: "1"}, Tool: "pid"})
	pidTool, err := kind(spec, implPid)
	require.NoError(t, err)

	reg := registry.New()
	require.NoError(t, reg.Register(echo, pidTool))
	ex := executor.MustNew(reg)
	res := run(t, ex, "file_echo", `{"text":"yaml"}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.JSONEq(t, `{"echo":"yaml"}`, string(res.Output))
	res = run(t, ex, "file_pid", `{}`)
	require.True(t, res.OK(), "%v", res.Error)
	pid, err := strconv.Atoi(res.Text())
	require.NoError(t, err)

	pool.mu.Lock()
	assert.Len(t, pool.clients, 1, "tools of one server share one connection")
	pool.mu.Unlock()
	assert.True(t, alive(pid))
	require.NoError(t, pool.Close())
	assert.False(t, alive(pid), "closing the pool ends the server")
	res = run(t, ex, "file_echo", `{"text":"after"}`)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeUnavailable, res.Error.Code)
}
