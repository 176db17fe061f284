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

// Under WithDetach a backend that ends its goroutine with runtime.Goexit
// (t.FailNow in a tool under test does) never sent its outcome: its call
// waited for the deadline, then the grace, and reported it still running;
// and since ab59762 its concurrency slot, given back only when the run
// sends, was never given back, so every later call of the tool gave up
// waiting for it. Seen failing first (the second call: concurrency_limit).
func TestAttackS20XGoexitingBackendGivesItsSlotBack(t *testing.T) {
	quit := tool.Func("quit", "The quit test tool", func(context.Context, struct{}) (string, error) {
		runtime.Goexit()
		return "", nil
	}, tool.WithTimeout(time.Minute))
	ex := newExec(t, []executor.Option{executor.WithDetach(), executor.WithToolConcurrency(1, "quit"), executor.WithMaxWait(time.Minute)}, quit)
	for _, id := range []string{"first", "second"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, _ := ex.Execute(ctx, tool.Call{ID: id, Name: "quit", Args: json.RawMessage(`{}`)})
		cancel()
		require.NotNil(t, res.Error, id)
		assert.Equal(t, tool.CodeInternal, res.Error.Code, "%s: %v", id, res.Error)
		assert.Nil(t, res.Metadata[tool.MetaStillRunning], id)
	}
}
