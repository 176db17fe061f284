package executor_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"testing/synctest"
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
	// In a synctest bubble, synctest.Wait returns once the abandoned run has
	// returned and every other goroutine waits: then, and not before, the
	// next call must find what the run held given back.
	synctest.Test(t, func(t *testing.T) {
		var running, most overlap
		unblock := make(chan struct{})
		hang := tool.Func("hang", "The hang test tool", func(ctx context.Context, _ struct{}) (string, error) {
			defer running.enter(&most)()
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
		synctest.Wait()
		require.Zero(t, running.Load(), "the first run returned")
		third := call("third")
		require.True(t, third.OK(), "the slot comes back when the first run returns: %v", third.Err())
	})
}

// Under WithDetach a Go function that ignores its context is left running
// at its deadline. Its call released its write lock when it returned, so
// the next write to the same file ran beside the first, still writing: the
// lock exists to stop exactly that overlap. Seen failing first: the second
// call ran (two writers at once). The lock is now the run's until its
// function returns, as its concurrency slots are.
func TestAttackS21AbandonedBackendKeepsItsLock(t *testing.T) {
	// In a synctest bubble, synctest.Wait returns once the abandoned run has
	// returned and every other goroutine waits: then, and not before, the
	// next call must find what the run held given back.
	synctest.Test(t, func(t *testing.T) {
		var running, most overlap
		unblock := make(chan struct{})
		type in struct {
			Path string `json:"path"`
		}
		write := tool.Func("write", "The write test tool", func(ctx context.Context, a in) (string, error) {
			defer running.enter(&most)()
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
		synctest.Wait()
		third := call("third", "fast")
		require.True(t, third.OK(), "the lock comes back when the first run returns: %v", third.Err())
		assert.Equal(t, int32(1), most.Load())
	})
}

// overlap counts the runs under way (enter, and the function it returns on
// leaving) and keeps the most there were at once in most.
type overlap struct{ atomic.Int32 }

func (o *overlap) enter(most *overlap) (leave func()) {
	n := o.Add(1)
	for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
	}
	return func() { o.Add(-1) }
}

// slowWriter is a detached-run test's writer of the file its "path"
// argument names (a write lock on it): a run writing f is counted in inF
// (most at once in most), and a run whose "line" is "slow" ignores its
// context until unblock is closed, so that it outlives its call.
func slowWriter(inF, most *overlap, unblock <-chan struct{}) tool.Tool {
	return tool.New("w", "Write a file", func(ctx context.Context, c tool.Call) (*tool.Result, error) {
		var a scPathArgs
		_ = json.Unmarshal(c.Args, &a)
		if a.Path == "f" {
			defer inF.enter(most)()
		}
		if a.Line == "slow" {
			<-unblock // ignores ctx
		}
		return &tool.Result{Content: []tool.Content{tool.TextContent("written")}}, nil
	}, scPathResource(tool.Write), tool.WithTimeout(20*time.Millisecond))
}
