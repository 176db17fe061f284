package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// leakCalls is how many calls of each kind the leak tests make: enough
// that anything a call leaves behind is many times the settling noise.
const leakCalls = 120

// leakSlack is the settling noise allowed between two counts.
const leakSlack = 5

func callTool(ctx context.Context, t testing.TB, c *Client, name string) (*tool.Result, error) {
	t.Helper()
	rt, err := c.Tool(name, tool.Spec{Name: name, Description: name})
	require.NoError(t, err)
	return rt.Run(ctx, tool.Call{ID: "c", Name: name, Args: json.RawMessage(`{"text":"hi"}`)})
}

// startedEmitter returns a context whose call reports on started when the
// server's first progress notification arrives (the slow tool sends one as
// its handler starts).
func startedEmitter(ctx context.Context) (context.Context, chan struct{}) {
	started := make(chan struct{}, 1)
	return tool.WithEmitter(ctx, func(ev tool.Event) {
		if ev.Kind == tool.EventOutput {
			select {
			case started <- struct{}{}:
			default:
			}
		}
	}), started
}

// cancelMidCall runs the slow tool and cancels it once its handler runs:
// when it says so on started (an in-process server), or else (nil) when
// the server's first progress notification arrives.
func cancelMidCall(t testing.TB, c *Client, started chan struct{}) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if started != nil {
		select {
		case <-started: // a timed-out call's
		default:
		}
	} else {
		ctx, started = startedEmitter(ctx)
	}
	go func() {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
		}
		cancel()
	}()
	_, err := callTool(ctx, t, c, "slow")
	return err
}

func timeoutCall(t testing.TB, c *Client, name string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	_, err := callTool(ctx, t, c, name)
	return err
}

// Calls that end every way over one in-memory session (success, the
// tool's error, a JSON-RPC error, the call's deadline, the caller
// cancelling mid-run) leave nothing behind once the SDK's cancellation
// notices are delivered.
func TestLeakInMemoryCallsEveryWay(t *testing.T) {
	f := newFixture(0)
	c := connectInMemory(t, f)
	round := func() {
		_, err := callTool(context.Background(), t, c, "echo")
		require.NoError(t, err)
		res, err := callTool(context.Background(), t, c, "fail")
		require.NoError(t, err)
		require.NotNil(t, res.Error, "the tool's error")
		_, err = callTool(context.Background(), t, c, "rpc_args")
		require.Error(t, err)
		require.Error(t, timeoutCall(t, c, "slow"))
		require.ErrorIs(t, cancelMidCall(t, c, f.started), context.Canceled)
	}
	round()
	base := held(t, nil, 0)
	for range leakCalls {
		round()
	}
	after := held(t, &base, 8*time.Second)
	t.Logf("%d rounds of 5 calls: goroutines %d -> %d, fds %d -> %d", leakCalls, base.goroutines, after.goroutines, base.fds, after.fds)
	assert.LessOrEqual(t, after.goroutines, base.goroutines+leakSlack, "goroutines")
	assert.LessOrEqual(t, after.fds, base.fds+leakSlack, "open files")
}

// muteConn is a server connection that answers initialize and then
// nothing: every later response is swallowed. When marked is set, it
// reports on it each request it reads whose params hold muteMarker.
type muteConn struct {
	mcp.Connection
	answered atomic.Int32
	marked   chan<- struct{}
}

// muteMarker is an argument value that makes muteConn report the request
// that carries it once the server has read it.
const muteMarker = "mute-marker"

func (c *muteConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && c.marked != nil && bytes.Contains(req.Params, []byte(muteMarker)) {
		c.marked <- struct{}{}
	}
	return msg, err
}

func (c *muteConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if _, ok := msg.(*jsonrpc.Response); ok && c.answered.Add(1) > 1 {
		return nil
	}
	return c.Connection.Write(ctx, msg)
}

type muteTransport struct {
	mcp.Transport
	marked chan<- struct{} // see muteConn
}

func (tr muteTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := tr.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &muteConn{Connection: c, marked: tr.marked}, nil
}

// Calls to a server that never answers end at their deadline or their
// caller's cancellation and leave nothing behind.
func TestLeakNeverAnsweringServer(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mute", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", Description: "d", InputSchema: openObject}, okHandler)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	marked := make(chan struct{}, 1)
	ss, err := srv.Connect(ctx, muteTransport{Transport: st, marked: marked}, nil)
	require.NoError(t, err)
	c, err := Connect(ctx, Transport(ct))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close(); _ = ss.Wait() })
	round := func() {
		require.Error(t, timeoutCall(t, c, "echo"))
		echo, err := c.Tool("echo", tool.Spec{Name: "echo", Description: "echo"}) // as callTool does
		require.NoError(t, err)
		cctx, cancel := context.WithCancel(ctx)
		go func() { <-marked; cancel() }() // once the server has the request: the caller gives up mid-call
		_, err = echo.Run(cctx, tool.Call{ID: "c", Name: "echo", Args: json.RawMessage(`{"text":"` + muteMarker + `"}`)})
		require.ErrorIs(t, err, context.Canceled)
	}
	round()
	base := held(t, nil, 0)
	for range leakCalls {
		round()
	}
	after := held(t, &base, 8*time.Second)
	t.Logf("%d rounds of 2 unanswered calls: goroutines %d -> %d, fds %d -> %d", leakCalls, base.goroutines, after.goroutines, base.fds, after.fds)
	assert.LessOrEqual(t, after.goroutines, base.goroutines+leakSlack, "goroutines")
	assert.LessOrEqual(t, after.fds, base.fds+leakSlack, "open files")
}

// A stdio server: calls that succeed, time out, are cancelled, and a
// server killed mid-call again and again (every next call starts a new
// one) leave one server process running and none dead and unreaped, and
// no goroutines or files behind; Close leaves nothing.
func TestLeakStdioServerCallsAndDeaths(t *testing.T) {
	const deaths = 25
	base := held(t, nil, 0)
	c, err := Connect(context.Background(), Command(fixtureCommand), WithTerminateTimeout(2*time.Second))
	require.NoError(t, err)
	defer c.Close()

	for range leakCalls {
		_, err := callTool(context.Background(), t, c, "echo")
		require.NoError(t, err)
		require.Error(t, timeoutCall(t, c, "slow"))
		require.ErrorIs(t, cancelMidCall(t, c, nil), context.Canceled)
	}
	for range deaths {
		killServerMidCall(t, c, 10*time.Second)
	}
	_, err = callTool(context.Background(), t, c, "echo")
	require.NoError(t, err)
	live := held(t, &holdings{goroutines: base.goroutines + 50, fds: base.fds + 20, children: []string{"server"}}, 8*time.Second)
	t.Logf("%d calls of 3 kinds and %d deaths: goroutines %d -> %d, fds %d -> %d, processes %v -> %v",
		leakCalls, deaths, base.goroutines, live.goroutines, base.fds, live.fds, base.children, live.children)
	assert.Len(t, live.children, len(base.children)+1, "one server runs, no dead one is left unreaped: %v", live.children)

	require.NoError(t, c.Close())
	after := held(t, &base, 8*time.Second)
	t.Logf("after Close: goroutines %d, fds %d, processes %v", after.goroutines, after.fds, after.children)
	assert.LessOrEqual(t, after.goroutines, base.goroutines+leakSlack, "goroutines")
	assert.LessOrEqual(t, after.fds, base.fds+leakSlack, "open files")
	assert.Equal(t, base.children, after.children, "processes")
}

// Calls through a Pool tool whose stdio server never answers initialize
// (each call dials again until its deadline), or exits at once, leave no
// server process, zombie, goroutine or file behind.
func TestLeakStdioServerNeverAnsweringOrExiting(t *testing.T) {
	base := held(t, nil, 0)
	p := NewPool()
	defer p.Close()
	mute, err := Kind(p)(tool.Spec{Name: "mute", Description: "d"}, json.RawMessage(`{"command":"sleep","args":["600"]}`))
	require.NoError(t, err)
	gone, err := Kind(p)(tool.Spec{Name: "gone", Description: "d"}, json.RawMessage(`{"command":"true"}`))
	require.NoError(t, err)
	call := func(ctx context.Context, tl tool.Tool) error {
		_, err := tl.Run(ctx, tool.Call{ID: "c", Name: tl.Spec().Name, Args: json.RawMessage(`{}`)})
		return err
	}
	const n = 100
	start := time.Now()
	for range n {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		require.Error(t, call(ctx, mute))
		cancel()
		require.Error(t, call(context.Background(), gone))
	}
	took := time.Since(start)
	// A call that gave up dialling must not leave its server running
	// for seconds after it returned: calls retried against a hung
	// server would pile servers up.
	soon := held(t, &base, time.Second)
	after := held(t, &base, 8*time.Second)
	t.Logf("%d calls to a mute and %d to a vanishing server in %v: goroutines %d -> %d (%d a second after), fds %d -> %d (%d), processes %d -> %d (%d)",
		n, n, took.Round(time.Millisecond), base.goroutines, after.goroutines, soon.goroutines, base.fds, after.fds, soon.fds, len(base.children), len(after.children), len(soon.children))
	assert.LessOrEqual(t, len(soon.children), len(base.children)+2, "servers still running a second after their calls gave up")
	assert.LessOrEqual(t, soon.goroutines, base.goroutines+20, "goroutines a second after the calls")
	assert.LessOrEqual(t, after.goroutines, base.goroutines+leakSlack, "goroutines")
	assert.LessOrEqual(t, after.fds, base.fds+leakSlack, "open files")
	assert.Equal(t, base.children, after.children, "processes")
}

// connTracker counts a test server's connections that are not closed.
type connTracker struct {
	mu   sync.Mutex
	open map[net.Conn]http.ConnState
}

func (ct *connTracker) hook(c net.Conn, s http.ConnState) {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if ct.open == nil {
		ct.open = map[net.Conn]http.ConnState{}
	}
	if s == http.StateClosed || s == http.StateHijacked {
		delete(ct.open, c)
		return
	}
	ct.open[c] = s
}

func (ct *connTracker) count() int {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return len(ct.open)
}

func countSessions(srv *mcp.Server) int {
	n := 0
	for range srv.Sessions() {
		n++
	}
	return n
}

// A streamable HTTP server: calls that succeed, time out and are
// cancelled, a server that never sends the headers of a call's answer,
// one that drops the connection mid-call and one that
// closes the session, each again and again, leave one session on the
// server, a few connections, and no goroutines or files behind.
func TestLeakHTTPServerCallsDropsAndClosedSessions(t *testing.T) {
	for _, asks := range []bool{false, true} {
		name := "no standalone stream"
		var opts []Option
		if asks {
			name = "standalone stream (WithRoots)"
			opts = append(opts, WithRoots(&mcp.Root{URI: "file:///tmp"})) //lint:ignore SA1019 roots (deprecated by SEP-2577) are what makes the client open the standalone stream
		}
		t.Run(name, func(t *testing.T) { leakHTTP(t, opts) })
	}
}

// leakServer has an echo tool and a slow one that says on started when it
// runs and ends with its call or after a second: over streamable HTTP the
// notice cancelling a call may reach the server before the call (two
// POSTs race), and a handler that ran for long would then hold the
// session's close up for as long.
func leakServer() (*mcp.Server, chan struct{}) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "leak", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", Description: "d", InputSchema: openObject}, okHandler)
	started := make(chan struct{}, 1)
	srv.AddTool(&mcp.Tool{Name: "slow", Description: "d", InputSchema: openObject}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case started <- struct{}{}:
		default:
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
			return okHandler(ctx, nil)
		}
	})
	return srv, started
}

func leakHTTP(t *testing.T, opts []Option) {
	srv, started := leakServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var drop, hang atomic.Bool
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (drop.Load() || hang.Load()) && r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"tools/call"`)) {
				if hang.Load() { // no headers, ever
					<-r.Context().Done()
					return
				}
				if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
					_ = c.Close()
				}
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	var conns connTracker
	hs.Config.ConnState = conns.hook
	hs.Start()
	defer hs.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()

	base := held(t, nil, 0)
	c, err := Connect(context.Background(), HTTP(hs.URL), append(opts, WithHTTPClient(&http.Client{Transport: tr}))...)
	require.NoError(t, err)
	defer c.Close()
	const breaks = 40
	for range leakCalls {
		_, err := callTool(context.Background(), t, c, "echo")
		require.NoError(t, err)
		require.Error(t, timeoutCall(t, c, "slow"))
		require.ErrorIs(t, cancelMidCall(t, c, started), context.Canceled)
		hang.Store(true)
		require.Error(t, timeoutCall(t, c, "echo"))
		hang.Store(false)
	}
	for range breaks {
		drop.Store(true)
		_, err := callTool(context.Background(), t, c, "echo")
		require.Error(t, err, "the connection dropped mid-call")
		drop.Store(false)
		_, err = callTool(context.Background(), t, c, "echo")
		require.NoError(t, err)
		for ss := range srv.Sessions() {
			_ = ss.Close() // the server ends the session
		}
		_, _ = callTool(context.Background(), t, c, "echo") // fails or redials
		_, err = callTool(context.Background(), t, c, "echo")
		require.NoError(t, err)
	}
	live := held(t, &holdings{goroutines: base.goroutines + 40, fds: base.fds + 10}, 8*time.Second)
	// The server lets go of a dropped session on its own goroutines: on a
	// loaded machine that may come a moment after the client's settled
	// (seen once at load 9: 2 sessions, then 1). A session it keeps for
	// good still fails.
	assert.Eventually(t, func() bool { return countSessions(srv) <= 1 }, 10*time.Second, 10*time.Millisecond, "sessions the server still holds")
	open, sessions := conns.count(), countSessions(srv)
	t.Logf("%d calls of 4 kinds and %d drops and closed sessions: goroutines %d -> %d, fds %d -> %d, server connections %d, server sessions %d",
		leakCalls, breaks, base.goroutines, live.goroutines, base.fds, live.fds, open, sessions)
	assert.LessOrEqual(t, sessions, 1, "sessions the server still holds")
	assert.LessOrEqual(t, open, 4, "connections still open")
	assert.LessOrEqual(t, live.goroutines, base.goroutines+40, "goroutines while connected")
	assert.LessOrEqual(t, live.fds, base.fds+10, "open files while connected")

	require.NoError(t, c.Close())
	tr.CloseIdleConnections()
	after := held(t, &base, 8*time.Second)
	t.Logf("after Close: goroutines %d, fds %d, server connections %d, sessions %d", after.goroutines, after.fds, conns.count(), countSessions(srv))
	assert.LessOrEqual(t, after.goroutines, base.goroutines+leakSlack, "goroutines")
	assert.LessOrEqual(t, after.fds, base.fds+leakSlack, "open files")
	assert.Zero(t, countSessions(srv), "sessions left on the server")
}

// killServerMidCall starts a slow call, kills the stdio server (which this
// test started) once the call runs, and fails unless the call returns an
// error within wait.
func killServerMidCall(t *testing.T, c *Client, wait time.Duration) {
	t.Helper()
	ctx, started := startedEmitter(context.Background())
	done := make(chan error, 1)
	go func() { _, err := callTool(ctx, t, c, "slow"); done <- err }()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the slow call never started")
	}
	pid := c.PID()
	require.NotZero(t, pid)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(wait):
		t.Fatalf("the call whose server died still waits after %v", wait)
	}
}
