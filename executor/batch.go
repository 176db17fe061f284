package executor

import (
	"context"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/toolbelt-go/toolbelt/internal/keylock"
	"github.com/toolbelt-go/toolbelt/tool"
)

// ExecuteBatch runs the parallel tool calls of one model turn and returns
// their results in call order: results[i] is the result of calls[i], never
// nil.
//
// Up to WithBatchConcurrency calls run at once (concurrency limits still
// apply). Calls are submitted in index order, so calls that declare the
// same resource run in index order (readers together, writers alone);
// calls on different resources run in parallel. A call that an extension
// rewrites onto a resource a later call of the batch is queued for, before
// that call has started, is refused (tool.CodeConflict): it would wait for
// a call that may not start until it ends. A failing call never
// cancels its siblings; cancelling ctx cancels them all, and calls not yet
// started then come back cancelled without running.
func (e *Executor) ExecuteBatch(ctx context.Context, calls []tool.Call) []*tool.Result {
	results := make([]*tool.Result, len(calls))
	// Submission, in call order: this fixes the order of the lock queues.
	states := make([]*callState, len(calls))
	var b *batch // one call alone steps aside as Execute's does
	if len(calls) > 1 {
		b = &batch{}
	}
	for i := range calls {
		c := calls[i]
		fillPrincipal(ctx, &c)
		// A call waiting for a person keeps its place among its siblings:
		// queued again behind later ones, it would wait for calls that
		// cannot start until it ends (StepAside).
		states[i] = e.admit(c, "", nil, b, time.Time{})
	}
	// Calls start in index order, at most batchLimit at once, each timed
	// from then. A call only ever waits for the locks of calls with a
	// smaller index, which have started already (relock refuses a call
	// rewritten onto a later one's resource: waitsForLater), so the batch
	// cannot deadlock.
	var g errgroup.Group
	g.SetLimit(e.batchLimit)
	for i, cs := range states {
		g.Go(func() error {
			// run turns a panic into the call's result; a backend that ends
			// the goroutine (runtime.Goexit) leaves run no way to return
			// one, so it is given here: a result for every call, never nil.
			defer func() {
				if results[i] == nil {
					results[i] = escaped(cs, nil)
				}
			}()
			cs.start = time.Now()
			results[i] = e.run(ctx, cs)
			return nil
		})
		cs.started.Store(true) // it holds a slot: Go waited for one
	}
	_ = g.Wait()
	return results
}

// batch is what the calls of one ExecuteBatch of several share: their
// identity as siblings.
type batch struct{ _ byte } // not empty: pointers to empty values may be equal

// waitsForLater refuses the new lock ticket tk of cs, a call of b that an
// extension rewrote to other resources, when tk waits for a sibling that
// has not started, directly or through the tickets it waits behind (another
// caller's call that waits for the sibling): calls start in index order, so
// the sibling is later, and it may not start until cs gives its batch slot
// back (one slot, WithBatchConcurrency(1), or every slot taken by calls
// waiting so). Waiting would be bounded only by the caller's context. With
// more slots the sibling might have started once another call ended: the
// refusal does not wait to see. Nil b allows all.
func (b *batch) waitsForLater(cs *callState, tk *keylock.Ticket) *tool.Error {
	if b == nil || tk == nil {
		return nil
	}
	key, owner, ok := tk.Ahead(func(owner any) bool {
		s, _ := owner.(*callState)
		return s != nil && s != cs && s.batch == b && !s.started.Load()
	})
	if !ok {
		return nil
	}
	return tool.Errorf(tool.CodeConflict, "an extension rewrote the call's arguments to use %q, which call %q later in this batch is queued for and may not start until this call ends: refused rather than wait for it; run the call on its own, or with its siblings in another order", key, clipField(owner.(*callState).owner()))
}
