package executor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Two runs of a hedged call at once, the second with its arguments
// rewritten to another file, while the first is inside its backend writing
// f: relock gave up the place the first run wrote under, and call b wrote
// f beside it. extension.Handler asks hedges not to do this; the executor
// no longer relies on it (5d4abb5 keeps a place while a run uses it).
// Seen failing on the code before 5d4abb5: b was not refused.
func TestAttackS21RHedgeRewritingKeepsTheOtherRunsLock(t *testing.T) {
	w := &s14Writer{}
	hold1 := make(chan struct{})
	var ex *executor.Executor
	var b *tool.Result
	hedge := extension.Func("hedge", extension.PriorityDefault, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			if req.Call.ID != "a" {
				return next(ctx, req)
			}
			first := make(chan *tool.Result, 1)
			r1, r2 := *req, *req
			go func() { first <- next(context.WithValue(ctx, s14HoldKey{}, hold1), &r1) }()
			<-hold1 // the first run writes f
			r2.Call.Args = json.RawMessage(`{"path":"g","line":"a"}`)
			res2 := next(ctx, &r2)
			b = <-s14Go(ex, "b", nil)
			hold1 <- struct{}{} // the first run lets go
			if res := <-first; res.Error != nil {
				return res
			}
			return res2
		}
	})
	ex = executor.MustNew(scRegistry(t, w.tool()), executor.WithExtensions(hedge), executor.WithConflictPolicy(executor.Refuse))
	a := <-s14Go(ex, "a", nil)
	require.Nil(t, a.Error)
	require.NotNil(t, b.Error, "b wrote f while the first run of a wrote it")
	assert.Equal(t, tool.CodeConflict, b.Error.Code, "%v", b.Error)
	assert.Zero(t, w.overlaps.Load())
	assert.Zero(t, executor.LockedKeys(ex))
}
