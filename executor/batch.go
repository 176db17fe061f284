package executor

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
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
	if ctx == nil {
		ctx = context.Background()
	}
	results := make([]*tool.Result, len(calls))
	type admitted struct {
		call  tool.Call
		entry *registry.Entry
		cs    *callState
	}
	batch := make([]admitted, len(calls))
	// Submission, in call order: this fixes the order of the lock queues.
	for i := range calls {
		a := &batch[i]
		a.call = calls[i]
		a.entry, _ = e.reg.Lookup(a.call.Name)
		a.cs = e.admit(&a.call, a.entry, nil)
	}
	if len(batch) == 1 {
		a := &batch[0]
		results[0] = e.run(ctx, &a.call, a.entry, a.cs, time.Now())
		return results
	}
	var g errgroup.Group
	g.SetLimit(e.batchLimit)
	for i := range batch {
		a := &batch[i]
		if ctx.Err() != nil {
			// Cancelled: the rest come back at once, in order, without a
			// goroutine each.
			results[i] = e.run(ctx, &a.call, a.entry, a.cs, time.Now())
			continue
		}
		g.Go(func() error {
			defer func() {
				if p := recover(); p != nil {
					a.cs.release()
					results[i] = extension.PanicResult(&a.call, fmt.Sprintf("executor running call %q", a.call.ID), p, debug.Stack())
				}
			}()
			results[i] = e.run(ctx, &a.call, a.entry, a.cs, time.Now())
			return nil // one call's failure is its result, never its siblings' cancellation
		})
	}
	_ = g.Wait()
	return results
}
