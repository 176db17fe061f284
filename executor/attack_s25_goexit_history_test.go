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

// A call whose backend ends its goroutine with runtime.Goexit (t.FailNow
// in a tool under test) ended, with a result and its events, but left no
// record in the history: the history said the call never happened, and a
// dashboard or an audit by history missed it.
func TestAttackS25GoexitedCallIsInTheHistory(t *testing.T) {
	quit := tool.Func("quit", "The quit test tool", func(context.Context, struct{}) (string, error) {
		runtime.Goexit()
		return "", nil
	})
	ex := newExec(t, nil, quit)
	id, err := ex.Submit(context.Background(), tool.Call{ID: "job", Name: "quit", Args: json.RawMessage(`{}`), Session: "s1"})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := ex.Wait(ctx, id)
	require.NotNil(t, res, "the job never ended: %v", err)
	recs := ex.History(executor.HistoryQuery{})
	require.Len(t, recs, 1, "the call left no record")
	r := recs[0]
	assert.Equal(t, "job", r.CallID)
	assert.Equal(t, "quit", r.Tool)
	assert.Equal(t, "s1", r.Session)
	assert.Equal(t, tool.StatusFailed, r.Status)
	assert.Equal(t, tool.CodeInternal, r.Code)
	assert.Contains(t, r.Message, "runtime.Goexit")
	assert.False(t, r.StartedAt.IsZero(), "the record says when the call started")
	assert.Equal(t, res.StartedAt, r.StartedAt)
}
