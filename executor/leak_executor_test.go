package executor_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// leakHeap is the live heap after two collections.
func leakHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A service that adds and removes tools for days (an MCP server's tools
// coming and going, one tool per session) under a per-tool concurrency
// limit keeps one limiter per tool that has a call running or waiting,
// not one per tool name it ever ran.
func TestLeakToolLimitersOfRemovedTools(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	reg := scRegistry(t)
	ex, err := executor.New(reg, executor.WithToolConcurrency(2), executor.WithMaxConcurrency(8))
	require.NoError(t, err)
	const n = 5000
	run := func(i int) {
		name := fmt.Sprintf("session_tool_%d", i)
		require.NoError(t, reg.Register(tool.Func(name, "Do nothing", func(context.Context, scEmpty) (string, error) { return "ok", nil })))
		res, err := ex.Execute(context.Background(), scCall(fmt.Sprintf("c%d", i), name, scEmpty{}))
		require.NoError(t, err, res)
		require.True(t, reg.Remove(name))
	}
	for i := range 100 { // warm up
		run(i)
	}
	before := leakHeap()
	for i := 100; i < n+100; i++ {
		run(i)
	}
	after := leakHeap()
	lims := executor.Limiters(ex)
	t.Logf("after %d tools registered, called once and removed: limiters %v, heap %d -> %d bytes", n, lims, before, after)
	require.LessOrEqual(t, lims["tool"], 1, "a limiter kept per removed tool")
	require.Less(t, int64(after)-int64(before), int64(n*100), "heap grows with every removed tool")
}
