package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/tool"
)

// openStream connects a reading client to the page's event stream and
// counts the call events it receives; waitFor waits until at least n have
// been received, or timeout has passed (events the stream dropped never
// come), woken by the reader at each event.
func openStream(b *testing.B, f *fixture) (received *atomic.Int64, waitFor func(n int64, timeout time.Duration), closeStream func()) {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.srv.URL+"/api/events", nil)
	require.NoError(b, err)
	req.Header = bearer()
	res, err := http.DefaultClient.Do(req)
	require.NoError(b, err)
	r := bufio.NewReader(res.Body)
	_, err = r.ReadString('\n') // the stream is open
	require.NoError(b, err)
	received = new(atomic.Int64)
	moved := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if strings.HasPrefix(line, "event: call") {
				received.Add(1)
				select {
				case moved <- struct{}{}:
				default:
				}
			}
		}
	}()
	waitFor = func(n int64, timeout time.Duration) {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		for received.Load() < n {
			select {
			case <-moved:
			case <-timer.C:
				return
			}
		}
	}
	return received, waitFor, func() {
		cancel()
		res.Body.Close()
		<-done
	}
}

// BenchmarkEventStream feeds the events of b.N calls (three each:
// submitted, started, completed) through the SSE handler to a client that
// reads them, and reports how many events a second the page keeps up with.
func BenchmarkEventStream(b *testing.B) {
	f := newFixture(b, dashboard.WithEventBuffer(1<<16))
	received, waitFor, closeStream := openStream(b, f)
	defer closeStream()
	call := tool.Call{ID: "b", Name: "echo", Args: json.RawMessage(`{"text":"hello"}`)}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		_, _ = f.ex.Execute(ctx, call)
	}
	want := int64(3 * b.N)
	waitFor(want, 30*time.Second)
	b.StopTimer()
	b.ReportMetric(float64(received.Load())/time.Since(start).Seconds(), "events/s")
	b.ReportMetric(float64(want-received.Load()), "lost")
}

// BenchmarkExecuteWithDashboard is a call's cost with and without a
// browser subscribed to the executor's events, interleaved in one run.
func BenchmarkExecuteWithDashboard(b *testing.B) {
	call := tool.Call{ID: "b", Name: "echo", Args: json.RawMessage(`{"text":"hello"}`)}
	ctx := context.Background()
	for _, subscribed := range []bool{false, true} {
		name := "baseline"
		if subscribed {
			name = "subscribed"
		}
		b.Run(name, func(b *testing.B) {
			f := newFixture(b, dashboard.WithEventBuffer(1<<16))
			if subscribed {
				_, _, closeStream := openStream(b, f)
				defer closeStream()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				_, _ = f.ex.Execute(ctx, call)
			}
		})
	}
}
