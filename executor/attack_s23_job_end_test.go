package executor_test

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A job runs in a goroutine of its own. A panic that escaped its pipeline
// (the executor's own bookkeeping: here a HistoryStore's Add; extensions
// and backends are guarded) was recovered by nobody: it crashed the whole
// process, every other call and job with it. ExecuteBatch already turns
// the same panic into the call's result (TestReviewBatchPanicStaysWithItsCall).
func TestAttackS23JobWhoseHistoryStorePanicsEnds(t *testing.T) {
	ex := newExec(t, []executor.Option{executor.WithHistoryStore(reviewPanickingHistory{id: "job"}), executor.WithToolConcurrency(1)}, scAppendless())
	events, stop := ex.Subscribe(executor.EventFilter{CallID: "job"})
	defer stop()
	id, err := ex.Submit(context.Background(), tool.Call{ID: "job", Name: "touch", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := ex.Wait(ctx, id)
	require.NotNil(t, res, "the job never ended: %v", err)
	require.Error(t, err)
	assert.Equal(t, tool.CodePanic, res.Error.Code)
	assert.Contains(t, res.Error.Message, "history store broke")
	st, err := ex.Status(id)
	require.NoError(t, err)
	assert.Equal(t, executor.JobDone, st.State)
	// Its subscribers learn that it ended, and its lock and slot are free.
	evs := scCollect(events, func(ev tool.Event) bool { return ev.Kind == tool.EventFailed }, 10*time.Second)
	require.NotEmpty(t, evs)
	assert.Equal(t, tool.EventFailed, evs[len(evs)-1].Kind)
	assert.Zero(t, executor.LockedKeys(ex))
	res, err = ex.Execute(ctx, tool.Call{ID: "after", Name: "touch", Args: json.RawMessage(`{}`)})
	require.NoError(t, err, res)
}

// A backend run in the job's own goroutine (the default: no WithDetach)
// that ends it with runtime.Goexit (t.FailNow in a tool under test)
// skipped the job's completion: Wait blocked for ever, and the job stayed
// "running" in the table, never pruned.
func TestAttackS23JobWhoseBackendEndsItsGoroutineEnds(t *testing.T) {
	quit := tool.Func("quit", "The quit test tool", func(context.Context, struct{}) (string, error) {
		runtime.Goexit()
		return "", nil
	})
	ex := newExec(t, nil, quit)
	id, err := ex.Submit(context.Background(), tool.Call{ID: "job", Name: "quit", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := ex.Wait(ctx, id)
	require.NotNil(t, res, "the job never ended: %v", err)
	require.Error(t, err)
	assert.Equal(t, tool.CodeInternal, res.Error.Code)
	assert.Contains(t, res.Error.Message, "runtime.Goexit")
	assert.Equal(t, "job", res.CallID)
}

// ExecuteBatch promises a result for every call, never nil; a backend that
// ended its goroutine with runtime.Goexit left a nil one (the batch's
// recover sees no panic).
func TestAttackS23BatchCallWhoseBackendEndsItsGoroutineHasAResult(t *testing.T) {
	quit := tool.Func("quit", "The quit test tool", func(context.Context, struct{}) (string, error) {
		runtime.Goexit()
		return "", nil
	})
	ex := newExec(t, nil, quit, scNoop())
	results := ex.ExecuteBatch(context.Background(), []tool.Call{
		{ID: "a", Name: "noop", Args: json.RawMessage(`{}`)},
		{ID: "b", Name: "quit", Args: json.RawMessage(`{}`)},
	})
	require.Len(t, results, 2)
	assert.True(t, results[0].OK())
	require.NotNil(t, results[1], "a nil result")
	require.Error(t, results[1].Err())
	assert.Equal(t, tool.CodeInternal, results[1].Error.Code)
	assert.Contains(t, results[1].Error.Message, "runtime.Goexit")
	assert.Equal(t, "b", results[1].CallID)
}
