package executor_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A run whose arguments were rewritten to another file moves the call's
// place there (relock). A later run of the same call with the arguments
// as submitted (a fallback that goes back to the original path, a hedge
// whose other run keeps them) is not "rewritten": it joined the moved
// place and wrote f holding only g's lock, while call b wrote f beside it.
// Seen failing first: b was not refused and wrote f beside a.
func TestAttackS21QRunWithTheOriginalArgumentsAfterARelock(t *testing.T) {
	for _, hedged := range []bool{false, true} {
		name := "after"
		if hedged {
			name = "beside" // the rewritten run is still in its backend
		}
		t.Run(name, func(t *testing.T) {
			// In a synctest bubble, synctest.Wait returns once every run has returned
			// and every other goroutine waits: no lock may be left then.
			synctest.Test(t, func(t *testing.T) {
				w := &s14Writer{}
				hold1, hold2 := make(chan struct{}), make(chan struct{})
				var ex *executor.Executor
				var b *tool.Result
				back := extension.Func("fallback-and-back", extension.PriorityDefault, func(next extension.Handler) extension.Handler {
					return func(ctx context.Context, req *extension.Request) *tool.Result {
						if req.Call.ID != "a" {
							return next(ctx, req)
						}
						r1, r2 := *req, *req
						r1.Call.Args = json.RawMessage(`{"path":"g","line":"a"}`)
						first := make(chan *tool.Result, 1)
						if hedged {
							go func() { first <- next(context.WithValue(ctx, s14HoldKey{}, hold1), &r1) }()
							<-hold1 // the rewritten run writes g
						} else {
							first <- next(ctx, &r1)
						}
						second := make(chan *tool.Result, 1)
						go func() { second <- next(context.WithValue(ctx, s14HoldKey{}, hold2), &r2) }()
						select {
						case <-hold2: // the second run writes f
							b = <-s14Go(ex, "b", nil)
							hold2 <- struct{}{}
						case res := <-second: // refused: give it back
							second <- res
						}
						if hedged {
							hold1 <- struct{}{}
						}
						if res := <-first; res.Error != nil {
							return res
						}
						return <-second
					}
				})
				ex = executor.MustNew(scRegistry(t, w.tool()), executor.WithExtensions(back), executor.WithConflictPolicy(executor.Refuse))
				a := <-s14Go(ex, "a", nil)
				require.Nil(t, a.Error, "%v", a.Error)
				require.NotNil(t, b, "the second run of a reached its backend")
				require.NotNil(t, b.Error, "b wrote f while the second run of a wrote it")
				assert.Equal(t, tool.CodeConflict, b.Error.Code, "%v", b.Error)
				assert.Zero(t, w.overlaps.Load())
				synctest.Wait()
				require.Zero(t, executor.LockedKeys(ex))
			})
		})
	}
}
