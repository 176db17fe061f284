package executor_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Under WithDetach a Go function that ignores its context is left running
// at its deadline; its call gave its concurrency slot back after the grace,
// so the next call started a second run while the first still ran, and a
// model calling it again and again piled up runs past any limit (reported
// by helper-147). Seen failing first: two runs at once under a limit of 1.
// The slot is now given back when the function returns.
func TestAttackS20AbandonedBackendKeepsItsSlot(t *testing.T) {
	var running, most atomic.Int32
	unblock := make(chan struct{})
	hang := tool.Func("hang", "The hang test tool", func(ctx context.Context, _ struct{}) (string, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-unblock // ignores ctx
		return "done", nil
	}, tool.WithTimeout(20*time.Millisecond))
	ex := newExec(t, []executor.Option{executor.WithDetach(), executor.WithToolConcurrency(1, "hang"), executor.WithMaxWait(300 * time.Millisecond)}, hang)
	call := func(id string) *tool.Result {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: id, Name: "hang", Args: json.RawMessage(`{}`)})
		return res
	}
	first := call("first")
	assert.Equal(t, tool.StatusTimedOut, first.Status)
	assert.Equal(t, true, first.Metadata[tool.MetaStillRunning])

	second := call("second")
	require.NotNil(t, second.Error)
	assert.Equal(t, tool.CodeConcurrencyLimit, second.Error.Code,
		"the second call waits for the slot the first run holds, and gives up: %v", second.Error)
	assert.Equal(t, int32(1), most.Load(), "never two runs at once under a limit of 1")

	close(unblock)
	require.Eventually(t, func() bool { return running.Load() == 0 }, 10*time.Second, time.Millisecond)
	require.Eventually(t, func() bool { return call("third").OK() }, 10*time.Second, 10*time.Millisecond,
		"the slot comes back when the first run returns")
}
