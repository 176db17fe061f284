package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// reviewPanickingHistory panics when it keeps the record of the call named
// by id: a panic in the executor's own bookkeeping, after the pipeline.
type reviewPanickingHistory struct{ id string }

func (h reviewPanickingHistory) Add(_ context.Context, r executor.Record) {
	if r.CallID == h.id {
		panic("history store broke")
	}
}

func (reviewPanickingHistory) Query(context.Context, executor.HistoryQuery) ([]executor.Record, error) {
	return nil, nil
}

// A panic that escapes one call of a batch becomes that call's result, at
// its index; its siblings run and succeed, and it gives back its lock and
// its concurrency slot (the calls after it, on the same key and under a
// limit of one, could not run otherwise).
func TestReviewBatchPanicStaysWithItsCall(t *testing.T) {
	res := []tool.Resource{{Key: "file:/x", Access: tool.Write}}
	w := tool.New("w", "The w test tool", func(context.Context, tool.Call) (*tool.Result, error) {
		return &tool.Result{}, nil
	}, tool.WithResources(func(json.RawMessage) []tool.Resource { return res }))
	ex := executor.MustNew(scRegistry(t, w), executor.WithHistoryStore(reviewPanickingHistory{id: "1"}),
		executor.WithMaxConcurrency(1), executor.WithMaxWait(5*time.Second))
	calls := make([]tool.Call, 4)
	for i := range calls {
		calls[i] = tool.Call{ID: fmt.Sprint(i), Name: "w", Args: json.RawMessage(`{}`)}
	}
	results := ex.ExecuteBatch(context.Background(), calls)
	require.Len(t, results, 4)
	for i, r := range results {
		require.NotNil(t, r, "result %d", i)
		if i == 1 {
			require.Error(t, r.Err())
			assert.Equal(t, tool.CodePanic, r.Error.Code)
			assert.Contains(t, r.Error.Message, "history store broke")
			assert.Equal(t, "1", r.CallID)
			continue
		}
		assert.True(t, r.OK(), "call %d: %v", i, r.Err())
	}
	assert.Zero(t, executor.LockedKeys(ex))
	// The slot is free: one more call runs at once.
	_, err := ex.Execute(context.Background(), tool.Call{ID: "after", Name: "w", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
}
