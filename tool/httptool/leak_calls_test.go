package httptool_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/internal/proctest"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
)

// connTracker counts a test server's connections that are not closed.
type connTracker struct {
	mu      sync.Mutex
	open    map[net.Conn]http.ConnState
	seen    int
	changed chan struct{} // closed (and dropped) at the next change of state, for waitClosed
}

func (ct *connTracker) hook(c net.Conn, s http.ConnState) {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if ct.changed != nil {
		close(ct.changed)
		ct.changed = nil
	}
	if ct.open == nil {
		ct.open = map[net.Conn]http.ConnState{}
	}
	switch s {
	case http.StateNew:
		ct.seen++
	case http.StateClosed, http.StateHijacked:
		delete(ct.open, c)
		return
	}
	ct.open[c] = s
}

func (ct *connTracker) count() (open, seen int) {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return len(ct.open), ct.seen
}

// waitClosed waits until the server has seen every connection close, woken
// by the server's own ConnState hook, for up to timeout; it returns how
// many are still open then.
func (ct *connTracker) waitClosed(timeout time.Duration) int {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		ct.mu.Lock()
		open := len(ct.open)
		if ct.changed == nil {
			ct.changed = make(chan struct{})
		}
		changed := ct.changed
		ct.mu.Unlock()
		if open == 0 {
			return 0
		}
		select {
		case <-changed:
		case <-timer.C:
			return open
		}
	}
}

func openFDs(t testing.TB) int {
	t.Helper()
	n, err := proctest.OpenFDs()
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return n
}

// settled waits up to 5 s for the goroutines and files to come down to at
// most the given counts, and returns what there is then. It polls: nothing
// announces that a goroutine has ended or a file descriptor was closed (the
// transport's connection goroutines end on their own after a Close), so
// the counts are read again every 20 ms until they are down or time is up.
func settled(t testing.TB, goroutines, fds int) (int, int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		g, f := runtime.NumGoroutine(), openFDs(t)
		if (g <= goroutines && f <= fds) || time.Now().After(deadline) {
			return g, f
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Calls that end every way an HTTP call can (success, an error status, a
// server that never sends its headers before the call's deadline, the
// caller cancelling while the body arrives, an endless body cut at the
// cap, a server dying mid-body, a redirect loop) leave no goroutines,
// files or server connections behind beyond the client's bounded idle
// pool, and none once it is closed.
func TestLeakCallsEveryWay(t *testing.T) {
	release := make(chan struct{})
	var conns connTracker
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.TrimPrefix(r.URL.Path, "/") {
		case "ok":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"ok":true}`)
		case "fail":
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, strings.Repeat("busy ", 1000))
		case "slowheaders":
			select {
			case <-r.Context().Done():
			case <-release:
			}
		case "slowbody":
			_, _ = io.WriteString(w, "first part")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-release:
			}
		case "endless":
			chunk := []byte(strings.Repeat("x", 4096))
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "die":
			c, bw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			_, _ = bw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\npart of it")
			_ = bw.Flush()
			_ = c.Close()
		case "loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		}
	}))
	srv.Config.ConnState = conns.hook
	srv.Start()
	defer srv.Close()
	defer close(release)

	spec := tool.Spec{Name: "api", InputSchema: json.RawMessage(`{"type":"object","properties":{"mode":{"type":"string"}},"required":["mode"]}`)}
	tl, err := httptool.New(spec, httptool.Config{URL: srv.URL + "/{mode}"},
		httptool.WithPrivateHosts("127.0.0.1"), httptool.WithMaxResponseBytes(64<<10))
	require.NoError(t, err)
	call := func(ctx context.Context, mode string) *tool.Error {
		_, err := tl.Run(ctx, tool.Call{ID: "c", Name: "api", Args: json.RawMessage(`{"mode":"` + mode + `"}`)})
		return tool.AsError(err)
	}
	round := func() {
		require.Nil(t, call(context.Background(), "ok"))
		assert.Equal(t, tool.CodeUnavailable, call(context.Background(), "fail").Code)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		assert.Equal(t, tool.CodeTimeout, call(ctx, "slowheaders").Code)
		cancel()
		ctx, cancel = context.WithCancel(context.Background())
		ctx = tool.WithEmitter(ctx, func(ev tool.Event) {
			if ev.Kind == tool.EventOutput {
				cancel() // the body has begun
			}
		})
		assert.Equal(t, tool.CodeCancelled, call(ctx, "slowbody").Code)
		cancel()
		require.Nil(t, call(context.Background(), "endless"))
		assert.Equal(t, tool.CodeUnavailable, call(context.Background(), "die").Code)
		assert.Equal(t, tool.CodeUnavailable, call(context.Background(), "loop").Code)
	}
	round()
	g0, f0 := settled(t, 0, 0)
	const rounds = 150
	for range rounds {
		round()
	}
	// The client keeps at most 16 idle connections to a host, each with
	// two goroutines and one file.
	g1, f1 := settled(t, g0+32+5, f0+16+5)
	open, seen := conns.count()
	t.Logf("%d rounds of 7 calls: goroutines %d -> %d, fds %d -> %d, server connections open %d of %d", rounds, g0, g1, f0, f1, open, seen)
	assert.LessOrEqual(t, g1, g0+32+5, "goroutines")
	assert.LessOrEqual(t, f1, f0+16+5, "open files")
	assert.LessOrEqual(t, open, 16+2, "server connections still open")

	tl.CloseIdleConnections()
	g2, f2 := settled(t, g0, f0)
	open = conns.waitClosed(5 * time.Second)
	t.Logf("idle connections closed: goroutines %d, fds %d, server connections open %d", g2, f2, open)
	assert.LessOrEqual(t, g2, g0+2, "goroutines")
	assert.LessOrEqual(t, f2, f0+2, "open files")
	assert.Zero(t, open, "server connections still open")
}
