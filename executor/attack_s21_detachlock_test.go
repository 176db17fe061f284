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
// at its deadline. Its call released its write lock when it returned, so
// the next write to the same file ran beside the first, still writing: the
// lock exists to stop exactly that overlap. Seen failing first: the second
// call ran (two writers at once). The lock is now the run's until its
// function returns, as its concurrency slots are.
func TestAttackS21AbandonedBackendKeepsItsLock(t *testing.T) {
	var running, most atomic.Int32
	unblock := make(chan struct{})
	type in struct {
		Path string `json:"path"`
	}
	write := tool.Func("write", "The write test tool", func(ctx context.Context, a in) (string, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if a.Path == "slow" {
			<-unblock // ignores ctx
		}
		return "wrote " + a.Path, nil
	}, tool.WithTimeout(20*time.Millisecond), tool.WithResources(func(args json.RawMessage) []tool.Resource {
		var a in
		_ = json.Unmarshal(args, &a)
		return []tool.Resource{{Key: "file:notes", Access: tool.Write}}
	}))
	ex := newExec(t, []executor.Option{executor.WithDetach(), executor.WithConflictPolicy(executor.Refuse)}, write)
	call := func(id, path string) *tool.Result {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: id, Name: "write", Args: json.RawMessage(`{"path":"` + path + `"}`)})
		return res
	}
	first := call("first", "slow")
	assert.Equal(t, tool.StatusTimedOut, first.Status)
	assert.Equal(t, true, first.Metadata[tool.MetaStillRunning])

	second := call("second", "fast")
	require.NotNil(t, second.Error, "the second writer ran beside the first, still running")
	assert.Equal(t, tool.CodeConflict, second.Error.Code, "%v", second.Error)
	assert.Contains(t, second.Error.Message, `call "first"`, "the refusal names the run holding the lock")
	assert.Equal(t, int32(1), most.Load(), "never two writers of one file at once")

	close(unblock)
	require.Eventually(t, func() bool { return call("third", "fast").OK() }, 10*time.Second, 10*time.Millisecond,
		"the lock comes back when the first run returns")
	assert.Equal(t, int32(1), most.Load())
}
