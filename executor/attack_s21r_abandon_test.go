package executor_test

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The paths by which a detached run outlives its call (a3a926a): each must
// keep the file's lock while the run still writes, give it back when the
// run ends however it ends, and leave no goroutine behind.

// s21rWriter is a Go function writing the file of its "path" argument under
// a 20 ms deadline it ignores: a run whose line is "slow", "panic" or
// "goexit" tells entered it is in, waits for unblock, then returns, panics
// or ends its goroutine. inF counts the runs writing f, most the most at
// once.
type s21rWriter struct {
	inF, most overlap
	entered   chan struct{}
	unblock   chan struct{}
	letGo     func()
}

func newS21rWriter() *s21rWriter {
	w := &s21rWriter{entered: make(chan struct{}, 8), unblock: make(chan struct{})}
	w.letGo = sync.OnceFunc(func() { close(w.unblock) })
	return w
}

func (w *s21rWriter) tool() tool.Tool {
	return tool.New("w", "Write a file", func(ctx context.Context, c tool.Call) (*tool.Result, error) {
		var a scPathArgs
		_ = json.Unmarshal(c.Args, &a)
		if a.Path == "f" {
			defer w.inF.enter(&w.most)()
		}
		switch a.Line {
		case "slow", "panic", "goexit":
			w.entered <- struct{}{}
			<-w.unblock // ignores ctx
		}
		switch a.Line {
		case "panic":
			panic("after its call was abandoned")
		case "goexit":
			runtime.Goexit()
		}
		return &tool.Result{Content: []tool.Content{tool.TextContent("written")}}, nil
	}, scPathResource(tool.Write), tool.WithTimeout(20*time.Millisecond))
}

// settled lets the held runs go and checks that f comes back and that no
// lock, no run and no goroutine is left. It runs in a synctest bubble.
func (w *s21rWriter) settled(t *testing.T, ex *executor.Executor) {
	t.Helper()
	w.letGo()
	synctest.Wait()
	res, _ := ex.Execute(context.Background(), scCall("after", "w", scPathArgs{Path: "f"}))
	require.True(t, res.OK(), "f comes back when the abandoned run ends: %v", res.Err())
	synctest.Wait()
	require.Zero(t, executor.LockedKeys(ex), "no lock is left once every run has ended")
	assert.Equal(t, int32(1), w.most.Load(), "never two writers of f at once")
}

func s21rExec(ex *executor.Executor, id, line string) *tool.Result {
	res, _ := ex.Execute(context.Background(), scCall(id, "w", scPathArgs{Path: "f", Line: line}))
	return res
}

// A backend that panics or ends its goroutine after its call gave up on
// it gives the lock back (the goroutine sends from a defer, 35264f3).
func TestAttackS21RAbandonedRunEndingBadlyGivesTheLockBack(t *testing.T) {
	for _, line := range []string{"slow", "panic", "goexit"} {
		t.Run(line, func(t *testing.T) {
			// In a synctest bubble, synctest.Wait (settled) returns once every run has
			// ended and every other goroutine waits: nothing may be held then.
			synctest.Test(t, func(t *testing.T) {
				defer scLeakCheck(t)()
				w := newS21rWriter()
				defer w.letGo()
				ex := executor.MustNew(scRegistry(t, w.tool()), executor.WithDetach(), executor.WithConflictPolicy(executor.Refuse))
				a := s21rExec(ex, "a", line)
				require.Equal(t, true, a.Metadata[tool.MetaStillRunning], "%v", a.Error)
				b := s21rExec(ex, "b", "")
				require.NotNil(t, b.Error, "b wrote f beside the abandoned run of a")
				assert.Equal(t, tool.CodeConflict, b.Error.Code, "%v", b.Error)
				w.settled(t, ex)
			})
		})
	}
}

// A job cancelled while its detached backend ignores the cancellation
// keeps the file's lock until the backend returns.
func TestAttackS21RCancelledJobKeepsItsLock(t *testing.T) {
	// In a synctest bubble, synctest.Wait (settled) returns once every run has
	// ended and every other goroutine waits: nothing may be held then.
	synctest.Test(t, func(t *testing.T) {
		defer scLeakCheck(t)()
		w := newS21rWriter()
		defer w.letGo()
		ex := executor.MustNew(scRegistry(t, w.tool()), executor.WithDetach(), executor.WithConflictPolicy(executor.Refuse))
		call := scCall("a", "w", scPathArgs{Path: "f", Line: "slow"})
		call.Timeout = time.Minute // the job ends by Cancel, not its deadline
		id, err := ex.Submit(context.Background(), call)
		require.NoError(t, err)
		<-w.entered
		require.NoError(t, ex.Cancel(id))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		a, err := ex.Wait(ctx, id)
		require.NotNil(t, a, "%v", err)
		assert.Equal(t, tool.StatusCancelled, a.Status, "%v", a.Error)
		assert.Equal(t, true, a.Metadata[tool.MetaStillRunning])

		b := s21rExec(ex, "b", "")
		require.NotNil(t, b.Error, "b wrote f beside the cancelled job's backend")
		assert.Equal(t, tool.CodeConflict, b.Error.Code, "%v", b.Error)
		w.settled(t, ex)
	})
}

// A call whose run was abandoned, then steps aside (an approval asked
// after a run, as an extension may), keeps the place its abandoned run
// writes under: StepAside gives up only a place no run uses.
func TestAttackS21RStepAsideKeepsTheAbandonedRunsPlace(t *testing.T) {
	// In a synctest bubble, synctest.Wait (settled) returns once every run has
	// ended and every other goroutine waits: nothing may be held then.
	synctest.Test(t, func(t *testing.T) {
		w := newS21rWriter()
		defer w.letGo()
		var ex *executor.Executor
		var b *tool.Result
		askAfter := extension.Func("ask-after", extension.PriorityRetry, func(next extension.Handler) extension.Handler {
			return func(ctx context.Context, req *extension.Request) *tool.Result {
				res := next(ctx, req)
				if req.Call.ID == "a" {
					req.Queue.StepAside(func() { b = s21rExec(ex, "b", "") })
				}
				return res
			}
		})
		ex = executor.MustNew(scRegistry(t, w.tool()), executor.WithDetach(), executor.WithExtensions(askAfter),
			executor.WithConflictPolicy(executor.Refuse))
		a := s21rExec(ex, "a", "slow")
		require.Equal(t, true, a.Metadata[tool.MetaStillRunning], "%v", a.Error)
		require.NotNil(t, b.Error, "b wrote f beside the abandoned run of a, while a stood aside")
		assert.Equal(t, tool.CodeConflict, b.Error.Code, "%v", b.Error)
		w.settled(t, ex)
	})
}

// In a batch, a later call on the file waits for the abandoned run of an
// earlier one, and gives up at WithMaxWait rather than run beside it.
func TestAttackS21RBatchSiblingWaitsForAnAbandonedRun(t *testing.T) {
	// In a synctest bubble, synctest.Wait (settled) returns once every run has
	// ended and every other goroutine waits: nothing may be held then.
	synctest.Test(t, func(t *testing.T) {
		w := newS21rWriter()
		defer w.letGo()
		ex := executor.MustNew(scRegistry(t, w.tool()), executor.WithDetach(), executor.WithBatchConcurrency(1),
			executor.WithMaxWait(200*time.Millisecond))
		res := ex.ExecuteBatch(context.Background(), []tool.Call{
			scCall("a", "w", scPathArgs{Path: "f", Line: "slow"}),
			scCall("b", "w", scPathArgs{Path: "f", Line: "b"}),
		})
		require.Equal(t, true, res[0].Metadata[tool.MetaStillRunning], "%v", res[0].Error)
		require.NotNil(t, res[1].Error, "b wrote f beside the abandoned run of a")
		assert.Equal(t, tool.CodeConflict, res[1].Error.Code, "%v", res[1].Error)
		w.settled(t, ex)
	})
}

// Under Wait, a call queued behind an abandoned run that may never return
// is still bounded: by its context's deadline, and by WithMaxWait.
func TestAttackS21RWaitBehindAnAbandonedRunIsBounded(t *testing.T) {
	for _, bound := range []string{"context deadline", "WithMaxWait"} {
		t.Run(bound, func(t *testing.T) {
			// In a synctest bubble, synctest.Wait (settled) returns once every run has
			// ended and every other goroutine waits: nothing may be held then.
			synctest.Test(t, func(t *testing.T) {
				w := newS21rWriter()
				defer w.letGo()
				opts := []executor.Option{executor.WithDetach()}
				ctx := context.Background()
				if bound == "WithMaxWait" {
					opts = append(opts, executor.WithMaxWait(200*time.Millisecond))
				} else {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, 3*time.Second) // past a's grace
					defer cancel()
				}
				ex := executor.MustNew(scRegistry(t, w.tool()), opts...)
				a := s21rExec(ex, "a", "slow")
				require.Equal(t, true, a.Metadata[tool.MetaStillRunning], "%v", a.Error)
				done := make(chan *tool.Result, 1)
				go func() {
					res, _ := ex.Execute(ctx, scCall("b", "w", scPathArgs{Path: "f", Line: "b"}))
					done <- res
				}()
				select {
				case b := <-done:
					require.NotNil(t, b.Error, "b wrote f beside the abandoned run of a")
					assert.Equal(t, tool.CodeConflict, b.Error.Code, "%v", b.Error)
					assert.Contains(t, b.Error.Message, `call "a"`)
				case <-time.After(30 * time.Second): // a bound on a hang, far above the wait's
					t.Fatal("b waited past its bound for the abandoned run of a")
				}
				w.settled(t, ex)
			})
		})
	}
}
