package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// leakSettle waits for the goroutine count to come down to at most want.
// It polls every 10 ms, for up to 2 s: nothing announces that a goroutine
// has ended.
func leakSettle(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 200 && n > want; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// Pages that open the event stream and vanish (a tab closed, a laptop
// lid shut, a reconnect loop) give back their stream slot, their
// subscription and their goroutine, while calls go on.
func TestLeakEventStreamsThatVanish(t *testing.T) {
	f := newFixture(t)
	addr := strings.TrimPrefix(f.srv.URL, "http://")
	open := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, err = fmt.Fprintf(c, "GET /api/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", addr, token)
		require.NoError(t, err)
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			require.NoError(t, err)
			if strings.HasPrefix(line, "HTTP/1.1 ") {
				require.Contains(t, line, " 200 ", "a stream slot is free")
			}
			if strings.HasPrefix(line, ": connected") {
				return c
			}
		}
	}
	echo := func(i int) {
		res, _ := f.ex.Execute(context.Background(), tool.Call{ID: fmt.Sprint("e", i), Name: "echo", Args: json.RawMessage(`{"text":"x"}`)})
		require.True(t, res.OK())
	}
	c := open()
	_ = c.Close()
	g0 := leakSettle(0)
	const n = 1000
	for i := range n {
		c := open()
		echo(i)
		if i%2 == 0 { // half vanish mid-stream with events unread
			echo(i)
		}
		_ = c.Close()
	}
	g1 := leakSettle(g0)
	t.Logf("after %d streams opened and dropped: goroutines %d -> %d", n, g0, g1)
	require.LessOrEqual(t, g1, g0)
	// Every slot is free again: as many pages as allowed can open.
	var conns []net.Conn
	for range 64 {
		conns = append(conns, open())
	}
	for _, c := range conns {
		_ = c.Close()
	}
}

// Approvals whose calls were cancelled while a person looked at them are
// gone from the page when the call returns, and deciding one then is
// refused (404), not reported as approved for a call that never runs.
func TestLeakApprovalsOfCancelledCallsLeaveThePage(t *testing.T) {
	f := newFixture(t)
	csrf := f.csrf(t)
	hdr := func() http.Header {
		h := bearer()
		h.Set("X-Toolbelt-CSRF", csrf)
		h.Set("Content-Type", "application/json")
		return h
	}
	const n = 300
	for i := range n {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = f.ex.Execute(ctx, tool.Call{ID: fmt.Sprint("w", i), Name: "write_file", Args: json.RawMessage(`{"path":"a","content":"b"}`), Session: fmt.Sprint("s", i)})
		}()
		list := f.waitPending(t, 1)
		cancel()
		<-done
		_, body := f.get(t, "/api/approvals", bearer())
		require.JSONEq(t, `[]`, body, "round %d: the cancelled call's approval is still listed", i)
		status, out := f.post(t, "/api/approvals/"+list[0].ID, `{"action":"approve"}`, hdr())
		require.Equal(t, http.StatusNotFound, status, "round %d: a decision for a cancelled call was taken: %v", i, out)
	}
}
