package mcptool

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// A server that stops answering while the client dials it again: the dial
// of a call without a deadline held the client's lock for as long as the
// server kept the initialize request waiting (forever), so every other
// call waited for it whatever its own deadline, and so did Close.
func TestAttackHangingRedialBlocksNeitherOtherCallsNorClose(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "t", Description: "d", InputSchema: openObject}, okHandler)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	var mode atomic.Int32 // 0 serve, 1 fail, 2 hang
	release := make(chan struct{})
	arrived := make(chan struct{}, 1) // a request reached the hanging server
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load() {
		case 1:
			hj, _ := w.(http.Hijacker)
			if c, _, err := hj.Hijack(); err == nil {
				_ = c.Close()
			}
			return
		case 2:
			select {
			case arrived <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()
	defer close(release)

	c, err := Connect(context.Background(), HTTP(hs.URL))
	require.NoError(t, err)
	rt, err := c.Tool("t", tool.Spec{Name: "t", Description: "d"})
	require.NoError(t, err)
	call := func(ctx context.Context) error {
		_, err := rt.Run(ctx, tool.Call{ID: "c", Name: "t", Args: json.RawMessage(`{}`)})
		return err
	}
	require.NoError(t, call(context.Background()))

	// The connection breaks: the call fails and the next one dials again.
	mode.Store(1)
	require.Error(t, call(context.Background()))
	mode.Store(2)
	hung := make(chan error, 1)
	go func() { hung <- call(context.Background()) }() // dials; initialize never answered
	select {
	case <-arrived: // the dial holds the client now
	case <-time.After(5 * time.Second):
		t.Fatal("the redial never reached the server")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(5 * time.Second):
		t.Fatal("a call with a 300 ms deadline still waits after 5 s for another call's dial")
	}

	// A client dialling the hanging server fails at its deadline, not
	// 5 s later when the SDK gives up delivering its cancellation notice.
	start := time.Now()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	_, err = Connect(ctx2, HTTP(hs.URL))
	require.Error(t, err)
	assert.Less(t, time.Since(start), 3*time.Second, "Connect with a 300 ms deadline")

	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close still waits after 5 s for a dial the server never answers")
	}
	select {
	case err := <-hung:
		require.Error(t, err, "the dial Close interrupted fails its call")
		assert.Equal(t, tool.CodeUnavailable, tool.AsError(err).Code, err.Error())
	case <-time.After(5 * time.Second):
		t.Fatal("the call whose dial Close interrupted still waits after 5 s")
	}
}
