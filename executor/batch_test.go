package executor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestBatchResultsInCallOrderAndFailuresStayLocal(t *testing.T) {
	type in struct {
		N int `json:"n"`
	}
	slowOK := tool.Func("slow_ok", "The slow_ok test tool", func(ctx context.Context, a in) (string, error) {
		time.Sleep(time.Duration(a.N) * time.Millisecond)
		return fmt.Sprint("ok ", a.N), nil
	})
	boom := tool.Func("boom", "The boom test tool", func(context.Context, in) (string, error) { panic("kaboom") })
	fail := tool.Func("fail", "The fail test tool", func(context.Context, in) (string, error) {
		return "", tool.NewError(tool.CodeNonZeroExit, "exit 1")
	})
	ex := executor.MustNew(scRegistry(t, slowOK, boom, fail))
	calls := []tool.Call{
		scCall("a", "slow_ok", in{N: 30}),
		scCall("b", "fail", in{}),
		scCall("c", "nope", in{}),
		scCall("d", "boom", in{}),
		scCall("e", "slow_ok", map[string]any{"n": "not a number"}),
		scCall("f", "slow_ok", in{N: 1}),
	}
	res := ex.ExecuteBatch(context.Background(), calls)
	require.Len(t, res, len(calls))
	want := []struct {
		status tool.Status
		code   tool.Code
		text   string
	}{
		{tool.StatusSucceeded, "", "ok 30"},
		{tool.StatusFailed, tool.CodeNonZeroExit, ""},
		{tool.StatusFailed, tool.CodeNotFound, ""},
		{tool.StatusFailed, tool.CodePanic, ""},
		{tool.StatusFailed, tool.CodeInvalidArguments, ""},
		{tool.StatusSucceeded, "", "ok 1"},
	}
	for i, w := range want {
		require.NotNil(t, res[i], "result %d", i)
		assert.Equal(t, calls[i].ID, res[i].CallID, "result %d is in call order", i)
		assert.Equal(t, w.status, res[i].Status, "call %s", calls[i].ID)
		if w.code != "" {
			require.NotNil(t, res[i].Error)
			assert.Equal(t, w.code, res[i].Error.Code)
		}
		if w.text != "" {
			assert.Equal(t, w.text, res[i].Text())
		}
	}
	assert.Empty(t, ex.ExecuteBatch(context.Background(), nil))
}

func TestBatchConcurrencyBound(t *testing.T) {
	probe := &scProbe{}
	release := make(chan struct{})
	ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release)), executor.WithBatchConcurrency(3))
	calls := make([]tool.Call, 10)
	for i := range calls {
		calls[i] = scCall(fmt.Sprint(i), "gate", scPathArgs{})
	}
	done := make(chan []*tool.Result)
	go func() { done <- ex.ExecuteBatch(context.Background(), calls) }()
	probe.waitCalls(t, 3) // three at the gate, none can leave before release
	assert.Equal(t, int32(3), probe.active.Load())
	close(release)
	res := <-done
	for _, r := range res {
		assert.True(t, r.OK())
	}
	assert.Equal(t, int32(3), probe.max.Load(), "never more than the batch concurrency at once")
}

// TestBatchAppendersSerialisedInSubmissionOrder: 1,000 calls of one batch,
// all running at once, each append a line to the same file in two writes.
// The write lock on the path makes the file hold every line, whole, in
// call order. The same batch without the declared resource overlaps, which
// shows the test can fail.
func TestBatchAppendersSerialisedInSubmissionOrder(t *testing.T) {
	const n = 1000
	for _, locked := range []bool{true, false} {
		t.Run(fmt.Sprintf("locked=%v", locked), func(t *testing.T) {
			probe := &scProbe{}
			path := filepath.Join(t.TempDir(), "out.txt")
			ex := executor.MustNew(scRegistry(t, scAppendTool("append", probe, locked)), executor.WithBatchConcurrency(n))
			calls := make([]tool.Call, n)
			var want strings.Builder
			for i := range calls {
				line := fmt.Sprintf("line %04d %s", i, strings.Repeat("x", 40))
				calls[i] = scCall(fmt.Sprint(i), "append", scPathArgs{Path: path, Line: line})
				want.WriteString(line + "\n")
			}
			res := ex.ExecuteBatch(context.Background(), calls)
			for i, r := range res {
				require.True(t, r.OK(), "call %d: %v", i, r.Err())
			}
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			if locked {
				assert.Equal(t, int32(1), probe.max.Load(), "one writer at a time")
				assert.Equal(t, want.String(), string(got), "all lines, whole, in submission order")
				assert.Zero(t, executor.LockedKeys(ex), "every lock released")
			} else {
				assert.Greater(t, probe.max.Load(), int32(1), "without the lock the writers overlap")
				assert.Len(t, got, want.Len())
			}
		})
	}
}

// TestBatchReadersShareWritersExclude: readers declared before a writer run
// together (the first reader waits until a second one is inside, which can
// only happen if they share the lock), the writer runs alone, and readers
// after the writer wait for it.
func TestBatchReadersShareWritersExclude(t *testing.T) {
	// In a synctest bubble time passes only while every goroutine waits:
	// the elapsed time is the writer's 5 ms sleep, unless a reader waited
	// for its 3 s timeout.
	synctest.Test(t, func(t *testing.T) {
		readers, writers := &scProbe{}, &scProbe{}
		var overlapWithWriter atomicFlag
		both := make(chan struct{})
		var closeBoth = onceFunc(func() { close(both) })
		read := tool.Func("read", "The read test tool", func(ctx context.Context, in scPathArgs) (string, error) {
			if readers.enter() >= 2 {
				closeBoth()
			}
			defer readers.leave()
			if writers.active.Load() > 0 {
				overlapWithWriter.set()
			}
			select { // wait until another reader is inside too, or give up
			case <-both:
			case <-ctx.Done():
			}
			return "read", nil
		}, scPathResource(tool.Read), tool.WithTimeout(3*time.Second))
		write := tool.Func("write", "The write test tool", func(ctx context.Context, in scPathArgs) (string, error) {
			writers.enter()
			defer writers.leave()
			if readers.active.Load() > 0 {
				overlapWithWriter.set()
			}
			time.Sleep(5 * time.Millisecond)
			if readers.active.Load() > 0 {
				overlapWithWriter.set()
			}
			return "wrote", nil
		}, scPathResource(tool.Write))
		ex := executor.MustNew(scRegistry(t, read, write))
		calls := []tool.Call{
			scCall("r1", "read", scPathArgs{Path: "a"}),
			scCall("r2", "read", scPathArgs{Path: "a"}),
			scCall("r3", "read", scPathArgs{Path: "a"}),
			scCall("w1", "write", scPathArgs{Path: "a"}),
			scCall("r4", "read", scPathArgs{Path: "a"}),
			scCall("r5", "read", scPathArgs{Path: "a"}),
		}
		start := time.Now()
		res := ex.ExecuteBatch(context.Background(), calls)
		for _, r := range res {
			require.True(t, r.OK(), "%s: %v", r.CallID, r.Err())
		}
		assert.Greater(t, readers.max.Load(), int32(1), "readers shared the lock")
		assert.Equal(t, int32(1), writers.max.Load())
		assert.False(t, overlapWithWriter.get(), "no reader ran while the writer held the lock")
		assert.Less(t, time.Since(start), 3*time.Second, "no reader waited for its timeout")
	})
}

// TestBatchCancelLeavesNothingBehind: cancelling a batch of process trees
// kills every process (checked by pid) and leaves no goroutine (goleak in
// TestMain and here).
func TestBatchCancelLeavesNothingBehind(t *testing.T) {
	defer scLeakCheck(t)()
	pids := make(chan int, 64)
	ex := executor.MustNew(scRegistry(t, scProcTool("sh", pids), scNoop()))
	script := `sleep 30 & echo "pid $!"; sleep 30 & echo "pid $!"; wait`
	calls := []tool.Call{
		scCall("p1", "sh", map[string]string{"script": script}),
		scCall("p2", "sh", map[string]string{"script": script}),
		scCall("n1", "noop", map[string]any{}),
		scCall("p3", "sh", map[string]string{"script": script}),
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []*tool.Result)
	go func() { done <- ex.ExecuteBatch(ctx, calls) }()
	var all []int
	for len(all) < 9 { // 3 shells, each with 2 children
		select {
		case pid := <-pids:
			all = append(all, pid)
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of 9 processes started", len(all))
		}
	}
	for _, pid := range all {
		require.True(t, scAlive(pid), "pid %d runs before the cancel", pid)
	}
	cancel()
	res := <-done
	for _, r := range res {
		if r.CallID == "n1" {
			continue
		}
		assert.Equal(t, tool.StatusCancelled, r.Status, "%s", r.CallID)
	}
	for _, pid := range all {
		// Polled: the tree's processes are not this process's children, and
		// nothing signals their end here.
		assert.Eventually(t, func() bool { return !scAlive(pid) }, 5*time.Second, 10*time.Millisecond, "pid %d is gone", pid)
	}
}

// An extension may run the rest of the chain in goroutines of its own (here
// a hedge: two runs of every call at once, the first answer wins). The
// batch worker's per-worker storage for backend deadlines is then taken
// from several goroutines at once; under -race this test fails if taking
// is not safe, and every backend still sees its own live deadline.
func TestBatchExtensionRunningTheChainConcurrently(t *testing.T) {
	deadlineSeen := tool.New("check", "The check test tool", func(ctx context.Context, c tool.Call) (*tool.Result, error) {
		d, ok := ctx.Deadline()
		if !ok || time.Until(d) <= 0 || ctx.Err() != nil {
			return nil, fmt.Errorf("backend context: deadline %v (set %v), err %v", d, ok, ctx.Err())
		}
		return &tool.Result{}, nil
	})
	ex := executor.MustNew(scRegistry(t, deadlineSeen), executor.WithExtensions(scHedge()), executor.WithBatchConcurrency(2))
	calls := make([]tool.Call, 500)
	for i := range calls {
		calls[i] = tool.Call{ID: fmt.Sprint(i), Name: "check"}
	}
	for i, res := range ex.ExecuteBatch(context.Background(), calls) {
		require.True(t, res.OK(), "call %d: %v", i, res.Err())
	}
}
