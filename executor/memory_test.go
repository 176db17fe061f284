//go:build !race

// The race detector makes a million calls take about a minute (it
// instruments every allocation and keeps shadow memory), so this test runs
// in the plain `go test` only.

package executor_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// TestHeapFlatOverAMillionCalls: the heap in use after 1,000,000 calls is
// within 10 MiB of the heap after 10,000: nothing grows per call (history
// is a fixed ring, locks and per-agent limiters are dropped when idle).
// Calls declare a resource and name one of many agents, so the lock table
// and the limiters are exercised.
func TestHeapFlatOverAMillionCalls(t *testing.T) {
	ex := executor.MustNew(scRegistry(t, scAppendless()), executor.WithAgentConcurrency(4))
	ctx := context.Background()
	agents := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"}
	call := tool.Call{ID: "c", Name: "touch", Args: []byte(`{}`)}
	run := func(n int) {
		for i := 0; i < n; i++ {
			call.Agent = agents[i%len(agents)]
			if _, err := ex.Execute(ctx, call); err != nil {
				t.Fatal(err)
			}
		}
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	start := time.Now()
	run(10_000)
	base := heap()
	run(990_000)
	after := heap()
	t.Logf("1M calls in %v; heap in use after 10k: %.1f MiB, after 1M: %.1f MiB", time.Since(start).Round(time.Millisecond),
		float64(base)/(1<<20), float64(after)/(1<<20))
	assert.LessOrEqual(t, int64(after)-int64(base), int64(10<<20))
	assert.Len(t, ex.History(executor.HistoryQuery{}), executor.DefaultHistory)
	assert.Zero(t, executor.LockedKeys(ex))
	alive, busy := executor.AgentLimiters(ex)
	assert.Zero(t, busy)
	assert.Zero(t, alive, "idle agents' limiters are dropped")
}
