package executor_test

import (
	"context"
	"encoding/json"
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

// A detached run of call a is abandoned writing f; an extension runs the
// call again rewritten to g, then back to f. keylock does not let a
// ticket pass another of the same owner, so the last run queues behind
// the place the abandoned run still writes under: waiting is right (two
// writers of f otherwise), but the wait must end when the caller cancels
// or WithMaxWait, not when a backend that ignores its context returns,
// and every place must come back once it does.
func TestAttackS21QRunBackToAFileItsAbandonedRunWrites(t *testing.T) {
	for _, bound := range []string{"max-wait", "cancel"} {
		t.Run(bound, func(t *testing.T) {
			// In a synctest bubble, synctest.Wait returns once every run has returned
			// and every other goroutine waits: no lock may be left then.
			synctest.Test(t, func(t *testing.T) {
				var inF, most overlap
				unblock := make(chan struct{})
				letGo := sync.OnceFunc(func() { close(unblock) })
				defer letGo()
				w := slowWriter(&inF, &most, unblock)
				var third *tool.Result
				back := extension.Func("there-and-back", extension.PriorityRetry, func(next extension.Handler) extension.Handler {
					return func(ctx context.Context, req *extension.Request) *tool.Result {
						r := *req
						res := next(ctx, &r)
						if still, _ := res.Metadata[tool.MetaStillRunning].(bool); !still {
							return res
						}
						r = *req
						r.Call.Args = json.RawMessage(`{"path":"g","line":"fallback"}`)
						if res = next(ctx, &r); res.Error != nil {
							return res
						}
						r = *req
						r.Call.Args = json.RawMessage(`{"path":"f","line":"again"}`)
						third = next(ctx, &r)
						return res
					}
				})
				opts := []executor.Option{executor.WithDetach(), executor.WithExtensions(back)}
				if bound == "max-wait" {
					opts = append(opts, executor.WithMaxWait(300*time.Millisecond))
				}
				ex := executor.MustNew(scRegistry(t, w), opts...)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if bound == "cancel" { // the caller gives up once the run back to f queues
					events, stop := ex.Subscribe(executor.EventFilter{Kinds: []tool.EventKind{tool.EventQueued}, CallID: "a"})
					defer stop()
					go func() {
						if _, ok := <-events; ok {
							cancel()
						}
					}()
				}

				a, _ := ex.Execute(ctx, scCall("a", "w", scPathArgs{Path: "f", Line: "slow"}))
				if bound == "max-wait" {
					require.Nil(t, a.Error, "%v", a.Error) // the fallback's result
				}
				require.NotNil(t, third, "the run back to f returned")
				require.NotNil(t, third.Error, "the run back to f wrote it beside the abandoned run")
				if bound == "max-wait" {
					assert.Equal(t, tool.CodeConflict, third.Error.Code, "%v", third.Error)
					// The model is told it waited behind its own earlier run, not
					// that call "a" (itself) holds the file.
					assert.Contains(t, third.Error.Message, "behind an earlier run of this call", "%v", third.Error)
				} else {
					assert.Equal(t, tool.CodeCancelled, third.Error.Code, "%v", third.Error)
				}
				assert.Equal(t, int32(1), inF.Load(), "the abandoned run still writes f")

				letGo()
				synctest.Wait()
				c, _ := ex.Execute(context.Background(), scCall("c", "w", scPathArgs{Path: "f"}))
				require.True(t, c.OK(), "f comes back when the abandoned run returns: %v", c.Err())
				synctest.Wait()
				require.Zero(t, executor.LockedKeys(ex), "no lock is left once every run has returned")
				assert.Equal(t, int32(1), most.Load(), "never two writers of f at once")
			})
		})
	}
}
