package executor

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// ExecuteBatch runs the parallel tool calls of one model turn and returns
// their results in call order: results[i] is the result of calls[i], never
// nil.
//
// Up to WithBatchConcurrency calls run at once (concurrency limits still
// apply). Calls are submitted in index order, so calls that declare the
// same resource run in index order (readers together, writers alone);
// calls on different resources run in parallel. A failing call never
// cancels its siblings; cancelling ctx cancels them all, and calls not yet
// started then come back cancelled without running.
func (e *Executor) ExecuteBatch(ctx context.Context, calls []tool.Call) []*tool.Result {
	results := make([]*tool.Result, len(calls))
	// Submission, in call order: this fixes the order of the lock queues.
	states := make([]*callState, len(calls))
	for i := range calls {
		c := calls[i]
		fillPrincipal(ctx, &c)
		states[i] = e.admit(c, "", nil, time.Time{})
		// A call waiting for a person keeps its place among its siblings:
		// queued again behind later ones, it would wait for calls that
		// cannot start until it ends (StepAside). One call alone steps
		// aside as Execute's does.
		states[i].batched = len(calls) > 1
	}
	// Calls start in index order, at most batchLimit at once, each timed
	// from then. A call only ever waits for the locks of calls with a
	// smaller index, which have started already, so the batch cannot
	// deadlock.
	var g errgroup.Group
	g.SetLimit(e.batchLimit)
	for i, cs := range states {
		g.Go(func() error {
			// A panic escaping the pipeline (the executor's own bookkeeping;
			// extensions and backends are guarded) becomes this call's
			// result and never stops its siblings; run has released the locks.
			defer func() {
				if p := recover(); p != nil {
					results[i] = extension.PanicResult(&tool.Call{ID: cs.call.ID, Name: cs.call.Name},
						fmt.Sprintf("executor running call %q", cs.call.ID), p, debug.Stack())
				}
			}()
			cs.start = time.Now()
			results[i] = e.run(ctx, cs)
			return nil
		})
	}
	_ = g.Wait()
	return results
}
