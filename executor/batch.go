package executor

import (
	"context"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/keylock"
	"github.com/toolbelt-go/toolbelt/tool"
)

// ExecuteBatch runs the parallel tool calls of one model turn and returns
// their results in call order: results[i], never nil, is calls[i]'s.
//
// Up to WithBatchConcurrency calls run at once (concurrency limits still
// apply). Calls on one resource run in index order (readers together,
// writers alone); calls on different resources run in parallel. A call an
// extension rewrites onto a resource that a later, unstarted call of the
// batch is queued for is refused (tool.CodeConflict): it would wait for a
// call that may not start until it ends. A failing call never cancels its
// siblings; cancelling ctx cancels them all, and calls not yet started
// come back cancelled without running.
func (e *Executor) ExecuteBatch(ctx context.Context, calls []tool.Call) []*tool.Result {
	results := make([]*tool.Result, len(calls))
	// Submitted in call order, which fixes the order of the lock queues.
	states := make([]*callState, len(calls))
	var b *batch // one call alone steps aside as Execute's does; a batched one keeps its place
	if len(calls) > 1 {
		b = &batch{}
	}
	for i := range calls {
		c := calls[i]
		c.Principal = extension.CallPrincipal(ctx, c.Principal)
		states[i] = e.admit(c, "", nil, b, time.Time{})
	}
	// Calls start in index order, at most batchLimit at once, each timed
	// from then. A call waits only for the locks of earlier calls, which
	// have started (waitsForLater), so the batch cannot deadlock.
	var g errgroup.Group
	g.SetLimit(e.batchLimit)
	for i, cs := range states {
		g.Go(func() error {
			defer func() { // a backend's runtime.Goexit leaves run no result to return
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
// extension rewrote to other resources, when tk waits (directly or through
// other tickets) for a sibling that has not started: that sibling is later
// and may not start until cs gives its batch slot back, so the wait would
// end only with the caller's context. Nil b allows all.
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
