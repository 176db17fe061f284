package executor_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// ExecuteBatch sets a call's batch after admit has put its ticket in the
// lock table, and the batch rule (waitsForLater, under the table's lock)
// reads the batch of every owner queued ahead of a rewritten call, those
// of other callers' batches too. Call a of one batch is rewritten onto
// the file p of another batch writes, just after p's submission: the read
// of p's batch and the write of it are unordered (go test -race reports
// it). Nothing else here races; the calls all succeed.
func TestAttackS22RBatchFieldReadWhileAnotherBatchIsAdmitted(t *testing.T) {
	dir := t.TempDir()
	x, pf := filepath.Join(dir, "x"), filepath.Join(dir, "p")
	var probe scProbe
	var ex *executor.Executor
	other := make(chan []*tool.Result, 1)
	aQueued := make(chan struct{}) // closed when a queues behind p
	// Before a is rewritten onto pf, another caller's batch submits p (pf).
	admitP := extension.Func("admit-p", extension.PriorityPolicy, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			switch req.Call.ID {
			case "a":
				queued, stopQ := ex.Subscribe(executor.EventFilter{CallID: "a", Kinds: []tool.EventKind{tool.EventQueued}})
				go func() {
					defer stopQ()
					<-queued
					close(aQueued)
				}()
				submitted, stop := ex.Subscribe(executor.EventFilter{CallID: "p", Kinds: []tool.EventKind{tool.EventSubmitted}})
				defer stop()
				go func() {
					other <- ex.ExecuteBatch(context.Background(), []tool.Call{
						scCall("q", "noop", scEmpty{}),
						scCall("p", "w", scPathArgs{Path: pf, Line: "p"}),
					})
				}()
				<-submitted
			case "p", "q":
				// Nothing of the other batch runs (a lock, a pool, an
				// event: each would order the write before the read)
				// until a queues behind p.
				<-aQueued
			}
			return next(ctx, req)
		}
	})
	ex = executor.MustNew(scRegistry(t, scAppendTool("w", &probe, true), scNoop()),
		executor.WithExtensions(admitP, redirectTo(pf)))
	res := ex.ExecuteBatch(context.Background(), []tool.Call{
		scCall("a", "w", scPathArgs{Path: x, Line: "a"}),
		scCall("n", "noop", scEmpty{}),
	})
	res2 := <-other
	for _, r := range append(res, res2...) {
		assert.Nil(t, r.Error, "%s: %v", r.CallID, r.Error)
	}
	require.Equal(t, 0, executor.LockedKeys(ex))
}
