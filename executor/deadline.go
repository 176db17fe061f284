package executor

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// lazyDeadline is the context a backend runs under: its parent with the
// call's deadline. context.WithDeadline arms a runtime timer and allocates
// four objects per call, although most in-process tools never look at
// their context's Done channel. lazyDeadline answers Deadline and Err from
// the clock, and builds the real context.WithDeadline only when somebody
// asks for Done (a select, exec.CommandContext, an HTTP request, a child
// context): from then on every method is the real context's.
//
// It behaves as context.WithDeadline(parent, deadline) would: Err is
// context.DeadlineExceeded once the deadline has passed, the parent's
// error once the parent is done, context.Canceled after cancel; Done
// closes at the same moments; children are cancelled with it, without a
// goroutine (the context package finds the real context through Value).
type lazyDeadline struct {
	parent   context.Context
	deadline time.Time // the earlier of the parent's deadline and ours

	armed atomic.Pointer[armedDeadline] // the real context, once Done was asked for
	final atomic.Pointer[error]         // Err, fixed by cancel before anybody armed

	mu sync.Mutex // serialises arming and cancelling
}

type armedDeadline struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// withLazyDeadline returns parent with deadline d. Call its cancel method
// when the backend returns, as with WithDeadline's cancel function.
func withLazyDeadline(parent context.Context, d time.Time) *lazyDeadline {
	return new(lazyDeadline).init(parent, d)
}

// init sets up c (zero; storage the caller chose) as withLazyDeadline does.
func (c *lazyDeadline) init(parent context.Context, d time.Time) *lazyDeadline {
	if pd, ok := parent.Deadline(); ok && pd.Before(d) {
		d = pd
	}
	c.parent, c.deadline = parent, d
	return c
}

// backendDeadline returns the context a backend runs under: ctx with
// deadline d, made in storage the call already has when it can find some
// (a deadlineSource in ctx): a call without a state has room for one in
// its frame (its callCtx or heldCtx), for its first run; a batch worker
// hands them out from per-worker chunks, so a batch's calls do not each
// allocate one. Extensions that wrap the call's context (a span, an
// emitter) are looked through.
func backendDeadline(ctx context.Context, d time.Time) *lazyDeadline {
	parent := ctx
	var src deadlineSource
	switch c := ctx.(type) {
	case *callCtx:
		// Directly under the call's own context: the backend's context
		// skips that layer (it answers nothing a backend asks for).
		src, parent = &c.dl, c.Context
	case *heldCtx:
		src, parent = &c.dl, c.Context
	case *batchWorker:
		src = c
	case *callState:
		if w, ok := c.Context.(*batchWorker); ok {
			src = w
		}
	default:
		src, _ = ctx.Value(sourceKey{}).(deadlineSource)
	}
	if src != nil {
		if dl := src.takeDeadline(); dl != nil {
			return dl.init(parent, d)
		}
	}
	return withLazyDeadline(ctx, d)
}

// deadlineSource hands out zero lazyDeadlines for backends' contexts, or
// nil when it has none left.
type deadlineSource interface {
	takeDeadline() *lazyDeadline
}

// sourceKey finds the deadlineSource of a call's context through the
// contexts extensions wrapped it in.
type sourceKey struct{}

// deadlineSlot is room for one zero lazyDeadline, handed out once: a call
// runs its backend once, unless an extension retries or hedges it (each
// run needs a context of its own, and the later ones allocate theirs).
type deadlineSlot struct {
	taken atomic.Bool
	d     lazyDeadline
}

func (s *deadlineSlot) takeDeadline() *lazyDeadline {
	if s.taken.Load() || !s.taken.CompareAndSwap(false, true) {
		return nil
	}
	return &s.d
}

func (w *batchWorker) takeDeadline() *lazyDeadline { return w.deadline() }

// deadlineChunk is a batch worker's store of zero deadline contexts.
type deadlineChunk struct {
	taken atomic.Int32
	d     [frameChunk]lazyDeadline
}

// deadline hands out a zero lazyDeadline from the worker's chunk. The
// worker's goroutine is normally the only taker, but an extension may run
// the rest of the chain in goroutines of its own (a hedge, a timeout), so
// taking is atomic: each element goes to exactly one taker.
func (w *batchWorker) deadline() *lazyDeadline {
	for {
		c := w.deadlines.Load()
		if c != nil {
			if i := c.taken.Add(1) - 1; i < frameChunk {
				return &c.d[i]
			}
		}
		fresh := new(deadlineChunk)
		fresh.taken.Store(1)
		if w.deadlines.CompareAndSwap(c, fresh) {
			return &fresh.d[0]
		}
	}
}

// Deadline implements context.Context.
func (c *lazyDeadline) Deadline() (time.Time, bool) { return c.deadline, true }

// Done implements context.Context. It arms the real deadline.
func (c *lazyDeadline) Done() <-chan struct{} { return c.arm().Done() }

// Err implements context.Context.
func (c *lazyDeadline) Err() error {
	if a := c.armed.Load(); a != nil {
		return a.ctx.Err()
	}
	if e := c.final.Load(); e != nil {
		return *e
	}
	return c.liveErr()
}

func (c *lazyDeadline) liveErr() error {
	if err := c.parent.Err(); err != nil {
		return err
	}
	// time.Until reads only the monotonic clock when the deadline carries
	// a monotonic reading (deadlines made from time.Now do).
	if time.Until(c.deadline) <= 0 {
		return context.DeadlineExceeded
	}
	return nil
}

// Value implements context.Context. The context package's own key (a *int,
// &cancelCtxKey) arms the real context: context.Cause and the cancellation
// of children find the cancelCtx through it.
//
// The call's own keys (its state, its hold, its storage) end here: a
// call that the backend runs through an executor with this context (a
// sub-agent) is another call, and must not take the outer call's lock or
// state for its own.
func (c *lazyDeadline) Value(key any) any {
	switch key.(type) {
	case stateKey, heldKey, sourceKey:
		return nil
	}
	if a := c.armed.Load(); a != nil {
		return a.ctx.Value(key)
	}
	if _, ok := key.(*int); ok {
		return c.arm().Value(key)
	}
	return c.parent.Value(key)
}

// String describes the context, as the context package's do.
func (c *lazyDeadline) String() string {
	return "executor.lazyDeadline(" + c.deadline.String() + ")"
}

// arm returns the real context, building it on first use. After cancel it
// is a context that is already done with the same error.
func (c *lazyDeadline) arm() context.Context {
	if a := c.armed.Load(); a != nil {
		return a.ctx
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.armed.Load(); a != nil {
		return a.ctx
	}
	a := &armedDeadline{}
	if e := c.final.Load(); e != nil && *e == context.DeadlineExceeded {
		// Done with the deadline already passed: WithDeadline says so
		// when given a time in the past (c.deadline itself may be a
		// moment ahead of the clock when cancelAt was handed a reading
		// taken at it). Deadline still reports c.deadline: lazyDeadline
		// answers it itself.
		a.ctx, a.cancel = context.WithDeadline(c.parent, time.Unix(0, 0))
		a.cancel()
	} else if e != nil {
		// Cancelled (or the parent was done: WithCancel of a done
		// parent reports the parent's error).
		a.ctx, a.cancel = context.WithCancel(c.parent)
		a.cancel()
	} else {
		a.ctx, a.cancel = context.WithDeadline(c.parent, c.deadline)
	}
	c.armed.Store(a)
	return a.ctx
}

// cancel releases the context, as WithDeadline's cancel function does.
func (c *lazyDeadline) cancel() { c.cancelAt(time.Time{}) }

// cancelAt is cancel for a caller that has just read the clock: now (the
// zero time for "read it") decides whether the deadline had passed, which
// fixes Err as context.DeadlineExceeded rather than context.Canceled.
func (c *lazyDeadline) cancelAt(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.armed.Load(); a != nil {
		a.cancel()
		return
	}
	if c.final.Load() != nil {
		return
	}
	err := c.parent.Err()
	if err == nil {
		if now.IsZero() {
			now = time.Now()
		}
		if !now.Before(c.deadline) {
			err = context.DeadlineExceeded
		}
	}
	switch err {
	case nil, context.Canceled:
		c.final.Store(&errCanceled)
	case context.DeadlineExceeded:
		c.final.Store(&errDeadline)
	default:
		e := err // its own variable: only this branch allocates
		c.final.Store(&e)
	}
}

// The errors cancel fixes, stored without allocating.
var (
	errCanceled = context.Canceled
	errDeadline = context.DeadlineExceeded
)
