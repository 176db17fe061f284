package mcpserver

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// pausedTransport is the client's side of an in-memory transport whose
// reading can be paused: a client that stops reading, so the server's
// writes (over a synchronous pipe) wait.
type pausedTransport struct {
	mcp.Transport
	mu       sync.Mutex
	gate     chan struct{} // non-nil while paused; closed to resume
	progress atomic.Int32  // progress notifications the client has read
}

func (p *pausedTransport) pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gate = make(chan struct{})
}

func (p *pausedTransport) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gate != nil {
		close(p.gate)
		p.gate = nil
	}
}

func (p *pausedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := p.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pausedConn{Connection: c, t: p}, nil
}

type pausedConn struct {
	mcp.Connection
	t *pausedTransport
}

func (c *pausedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "notifications/progress" {
		c.t.progress.Add(1)
	}
	c.t.mu.Lock()
	gate := c.t.gate
	c.t.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
		}
	}
	return msg, err
}

// burstCall serves a tool that emits n output chunks at once to an SDK
// client that has stopped reading, and returns how many progress
// notifications the client got once it read again. It fails the test if
// the tool was slowed down by the client that did not read.
func burstCall(t *testing.T, n int, opts ...Option) int {
	t.Helper()
	emitted := make(chan struct{})
	reg := registry.New()
	reg.MustRegister(tool.New("burst", "Emits output chunks", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
		for i := range n {
			tool.EmitOutput(ctx, "stdout", []byte("chunk "+strconv.Itoa(i)))
		}
		close(emitted)
		return &tool.Result{Content: []tool.Content{tool.TextContent("done")}}, nil
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{}}`))))
	srv, err := New(executor.MustNew(reg, executor.WithTimeout(20*time.Second)), opts...)
	require.NoError(t, err)

	var got atomic.Int32
	handled := make(chan struct{}, n) // one per notification the handler got
	tr := &pausedTransport{Transport: serve(t, srv)}
	cs := sdkClient(t, tr, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		got.Add(1)
		select {
		case handled <- struct{}{}:
		default:
		}
	}}, nil)

	tr.pause()
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "burst", Arguments: map[string]any{}}
		params.SetProgressToken("burst-1")
		res, err := cs.CallTool(context.Background(), params)
		done <- answer{res, err}
	}()
	select {
	case <-emitted:
	case <-time.After(10 * time.Second):
		tr.resume()
		t.Fatal("the tool was slowed down by a client that does not read its progress")
	}
	tr.resume()
	a := <-done
	require.NoError(t, a.err)
	require.False(t, a.res.IsError)
	require.Equal(t, "done", a.res.Content[0].(*mcp.TextContent).Text)
	// The queued notifications were sent before the result (progress.stop
	// flushes them), so the client read them before it; but it hands them
	// to its handler on another goroutine: wait until the handler has had
	// every one the client read.
	read := int(tr.progress.Load())
	for i := range read {
		select {
		case <-handled:
		case <-time.After(5 * time.Second):
			t.Fatalf("the client read %d progress notifications, its handler got %d", read, i)
		}
	}
	return int(got.Load())
}

// WithProgressBuffer bounds how many progress notifications of one call
// wait for a client that does not read: beyond it, output is dropped (the
// tool is never slowed), and a larger buffer keeps more than the default.
func TestWithProgressBufferBoundsTheQueue(t *testing.T) {
	// Buffer 3: at most the 3 queued, plus the few already on their way
	// (the one being written, what the paused client's reader had taken in
	// before it stopped): slack.
	const slack = 8
	got := burstCall(t, 100, WithProgressBuffer(3))
	assert.GreaterOrEqual(t, got, 3)
	assert.LessOrEqual(t, got, 3+slack, "a buffer of 3 keeps at most 3 waiting")

	// A buffer larger than the default (256) keeps every one of 400.
	got = burstCall(t, 400, WithProgressBuffer(500))
	assert.Equal(t, 400, got)

	// The default drops beyond 256 (and 0 means the default).
	for _, opts := range [][]Option{nil, {WithProgressBuffer(0)}} {
		got = burstCall(t, 400, opts...)
		assert.GreaterOrEqual(t, got, 256)
		assert.LessOrEqual(t, got, 256+slack)
	}
}
