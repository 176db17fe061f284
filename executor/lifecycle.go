package executor

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/keylock"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// abandonGrace is how long a call that holds locks or slots waits, after
// its deadline, for its backend to really stop before giving them up.
const abandonGrace = time.Second

// callState follows one call that something tracks: its lock ticket, its
// job, or subscribers to its events. Plain calls have none.
//
// Once bound (bind), the state is also the call's context: it wraps the
// caller's context and answers stateFrom itself, which saves the
// allocation of a context.WithValue. Cancellation, deadlines and other
// values all come from the embedded context.
type callState struct {
	context.Context // the caller's context; nil until bind

	e      *Executor
	callID string
	tool   string
	agent  string
	job    *job
	// refused is the result of a call that failed at admission (a
	// panicking ResourceDeclarer).
	refused *tool.Result
	// tk is the call's place in the lock queues, taken at submission (in
	// ticket, so that a call with resources allocates one struct, not two)
	// or again by relock (in a fresh ticket: the table may still point at
	// the old one's owner). It is valid while lockTicketed is set.
	tk     *keylock.Ticket
	ticket keylock.Ticket
	// lock holds the lock flags (lockTicketed, lockGranted). track writes
	// it plainly, before the state is shared; from then on it is read and
	// changed atomically, because an extension may run the rest of the
	// chain more than once at a time for one call (a hedge) and each run
	// checks it; the first release wins.
	lock uint32
}

// The flags of callState.lock.
const (
	lockTicketed uint32 = 1 << iota // ticket is taken and not yet released
	lockGranted                     // the ticket's keys are granted
)

// lockFlags reads the lock flags.
func (cs *callState) lockFlags() uint32 { return atomic.LoadUint32(&cs.lock) }

// ticketed reports whether the call holds a ticket it has not released.
func (cs *callState) ticketed() bool { return cs.lockFlags()&lockTicketed != 0 }

// ticketFlags are the lock flags after enqueueing tk: taken reports whether
// a ticket was taken (the resources named a key). A ticket granted at once
// needs no wait.
func ticketFlags(tk *keylock.Ticket, taken bool) uint32 {
	switch {
	case !taken:
		return 0
	case tk.Ready():
		return lockTicketed | lockGranted
	}
	return lockTicketed
}

// jobID is the id of the call's job, empty for a call that is not one.
func (cs *callState) jobID() JobID {
	if cs.job == nil {
		return ""
	}
	return cs.job.id
}

type stateKey struct{}

func stateFrom(ctx context.Context) *callState {
	switch c := ctx.(type) {
	case *callState:
		return c
	case *callCtx, *heldCtx:
		return nil
	}
	cs, _ := ctx.Value(stateKey{}).(*callState)
	return cs
}

// Value answers stateFrom with the state and heldFrom with none, and
// delegates every other key (including the context package's own, so
// children of the state are cancelled with its parent without a
// goroutine).
func (cs *callState) Value(key any) any {
	switch key.(type) {
	case stateKey:
		return cs
	case heldKey:
		return nil
	case sourceKey:
		// The batch worker that runs the call, if any; the search ends
		// here either way.
		if w, ok := cs.Context.(*batchWorker); ok {
			return w
		}
		return nil
	}
	return cs.Context.Value(key)
}

// String names the context for debugging, as context.WithValue does.
func (cs *callState) String() string {
	return fmt.Sprintf("%v.WithCall(%q)", cs.Context, cs.owner())
}

// admit is a call's submission: it takes the call's lock tickets (so that
// submission order is lock order) and announces the call. It returns nil
// for a call nothing needs to follow, without allocating.
func (e *Executor) admit(call *tool.Call, entry *registry.Entry, j *job) *callState {
	rs, refused, tracked := e.declare(call, entry, j)
	if !tracked {
		return nil
	}
	return e.track(new(callState), call, j, rs, refused)
}

// declare asks the call's tool for its resources and reports whether the
// call needs a state (it has resources, failed to declare them, is a job,
// or someone subscribes to events).
func (e *Executor) declare(call *tool.Call, entry *registry.Entry, j *job) (rs []tool.Resource, refused *tool.Result, tracked bool) {
	if entry != nil {
		if d, ok := entry.Tool.(tool.ResourceDeclarer); ok {
			rs, refused = declared(d, call)
		}
	}
	return rs, refused, len(rs) > 0 || refused != nil || j != nil || e.hub.active()
}

// track fills cs (zero; storage the caller chose) for an admitted call:
// it takes the call's lock ticket and announces the call.
func (e *Executor) track(cs *callState, call *tool.Call, j *job, rs []tool.Resource, refused *tool.Result) *callState {
	cs.e, cs.callID, cs.tool, cs.agent, cs.job, cs.refused = e, call.ID, call.Name, call.Agent, j, refused
	if len(rs) > 0 {
		// Plain: nobody else sees the state yet.
		cs.tk = &cs.ticket
		cs.lock = ticketFlags(cs.tk, e.enqueue(cs.owner(), rs, cs.tk) != nil)
	}
	if cs.listened() {
		cs.emit(tool.Event{Kind: tool.EventSubmitted})
	}
	return cs
}

// declared asks the tool for the resources of a call, turning a panic into
// a failed result.
func declared(d tool.ResourceDeclarer, call *tool.Call) (rs []tool.Resource, refused *tool.Result) {
	defer func() {
		if p := recover(); p != nil {
			rs, refused = nil, extension.PanicResult(call, fmt.Sprintf("tool %q declaring its resources", call.Name), p, debug.Stack())
		}
	}()
	return d.Resources(call.Args), nil
}

// enqueue takes a ticket for rs, in into when it is not nil (a zero
// ticket), and returns it; nil when rs name no key.
func (e *Executor) enqueue(owner string, rs []tool.Resource, into *keylock.Ticket) *keylock.Ticket {
	var one [1]keylock.Request
	reqs := one[:0]
	if len(rs) > 1 {
		reqs = make([]keylock.Request, 0, len(rs))
	}
	for _, r := range rs {
		reqs = append(reqs, keylock.Request{Key: r.Key, Exclusive: r.Access == tool.Write})
	}
	if into == nil {
		return e.locks.Enqueue(owner, reqs)
	}
	if !e.locks.EnqueueInto(into, owner, reqs) {
		return nil
	}
	return into
}

func (cs *callState) owner() string {
	if cs.callID != "" {
		return cs.callID
	}
	return string(cs.jobID())
}

// bind returns ctx carrying the state (the state itself, wrapping ctx),
// and an emitter when anyone listens. It is called once per state.
func (cs *callState) bind(ctx context.Context) context.Context {
	cs.Context = ctx
	ctx = cs
	if cs.listened() {
		fn := tool.Emitter(cs.emit)
		// An emitter the caller installed (an MCP server turning output
		// into progress notifications) keeps receiving the call's events.
		if outer := tool.EmitterFrom(ctx); outer != nil {
			fn = func(ev tool.Event) {
				cs.emit(ev)
				outer(ev)
			}
		}
		ctx = tool.WithEmitter(ctx, fn)
	}
	return ctx
}

// listened reports whether anyone receives the call's events: its job or
// a subscriber. Callers check it before building an event, which is not
// free (an Event is a few hundred bytes).
func (cs *callState) listened() bool { return cs.job != nil || cs.e.hub.active() }

// emit stamps ev with the call's identity and hands it to the job and the
// subscribers. Backends and extensions reach it through tool.Emit.
func (cs *callState) emit(ev tool.Event) {
	if !cs.listened() {
		return
	}
	ev.CallID, ev.JobID, ev.Tool, ev.Agent = cs.callID, string(cs.jobID()), cs.tool, cs.agent
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	if cs.job != nil {
		cs.job.observe(&ev)
	}
	cs.e.hub.publish(ev)
}

func (cs *callState) started(attempt int) {
	if cs.listened() {
		cs.emit(tool.Event{Kind: tool.EventStarted, Attempt: attempt})
	}
}

func (cs *callState) queued(reason string) {
	if cs.listened() {
		cs.emit(tool.Event{Kind: tool.EventQueued, Reason: reason})
	}
}

// finish announces the result, releases the locks and completes the job.
func (cs *callState) finish(res *tool.Result) {
	if cs.listened() {
		cs.emitResult(res)
	}
	cs.release()
	if cs.job != nil {
		cs.e.jobs.complete(cs.job, res)
	}
}

// emitResult announces the call's end.
func (cs *callState) emitResult(res *tool.Result) {
	kind := tool.EventFailed
	switch res.Status {
	case tool.StatusSucceeded:
		kind = tool.EventCompleted
	case tool.StatusCancelled:
		kind = tool.EventCancelled
	}
	ev := tool.Event{Kind: kind, Result: res}
	if res.Error != nil {
		ev.Reason = res.Error.Error()
	}
	cs.emit(ev)
}

// release gives up the call's locks. A second release (the deferred one
// after finish, or another run's) costs nothing.
func (cs *callState) release() {
	for {
		f := cs.lockFlags()
		if f&lockTicketed == 0 {
			return
		}
		if atomic.CompareAndSwapUint32(&cs.lock, f, 0) {
			cs.tk.Release()
			return
		}
	}
}

// awaitLocks waits for every key of tk, or refuses at once under Refuse.
func (e *Executor) awaitLocks(ctx context.Context, tk *keylock.Ticket, cs *callState) *tool.Error {
	if tk.Ready() {
		return nil
	}
	key, excl, holder, ok := tk.Waiting()
	if !ok { // granted between the two looks
		return nil
	}
	access := "read"
	if excl {
		access = "write"
	}
	if e.conflict == Refuse {
		return tool.Errorf(tool.CodeConflict, "cannot %s %q now: call %q holds it or is ahead in line; retry when it has finished", access, key, holder)
	}
	if cs != nil {
		cs.queued(fmt.Sprintf("lock: waiting to %s %q behind call %q", access, key, holder))
	}
	wctx, cancel := withMaxWait(ctx, e.maxWait)
	defer cancel()
	began := time.Now()
	err := tk.Wait(wctx)
	if err == nil {
		return nil
	}
	if ctx.Err() == context.Canceled {
		return tool.AsError(ctx.Err())
	}
	return tool.Errorf(tool.CodeConflict, "waited %v to %s %q behind call %q and gave up at the deadline: retry later, or give the call a longer deadline", time.Since(began).Round(time.Millisecond), access, key, holder)
}

// relock handles arguments an extension rewrote: if they declare other
// resources than the call was queued for, the call gives up its old place
// and queues for the new resources. It returns a ticket the caller must
// release when the call had no state to keep it in (nil otherwise).
func (e *Executor) relock(ctx context.Context, cs *callState, req *extension.Request) (*keylock.Ticket, *tool.Error) {
	d, ok := req.Tool.(tool.ResourceDeclarer)
	if !ok {
		return nil, nil
	}
	rs, refused := declared(d, &req.Call)
	if refused != nil {
		return nil, refused.Error
	}
	if cs != nil && cs.ticketed() && cs.sameResources(rs) {
		return nil, nil
	}
	if cs == nil {
		if h := heldFrom(ctx); h != nil {
			if h.hold.Matches(toRequests(rs)) {
				return nil, nil
			}
			// Give up the key before queueing for the new ones: holding
			// one key while waiting for others could deadlock.
			h.hold.Release()
		}
		tk := e.enqueue(req.Call.ID, rs, nil)
		if tk == nil {
			return nil, nil
		}
		if ferr := e.awaitLocks(ctx, tk, nil); ferr != nil {
			tk.Release()
			return nil, ferr
		}
		return tk, nil
	}
	cs.release()
	if len(rs) > 0 {
		// A fresh ticket, not the old one's storage: the table may still
		// point at the old ticket's owner for a moment (see keylock's
		// holder report).
		cs.tk = new(keylock.Ticket)
		atomic.StoreUint32(&cs.lock, ticketFlags(cs.tk, e.enqueue(cs.owner(), rs, cs.tk) != nil))
	}
	return nil, nil
}

// sameResources reports whether rs names the keys the ticket was taken for.
func (cs *callState) sameResources(rs []tool.Resource) bool {
	return cs.tk.Matches(toRequests(rs))
}

func toRequests(rs []tool.Resource) []keylock.Request {
	out := make([]keylock.Request, len(rs))
	for i, r := range rs {
		out[i] = keylock.Request{Key: r.Key, Exclusive: r.Access == tool.Write}
	}
	return out
}

func withMaxWait(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return ctx, func() {}
}

// waitGrace waits up to abandonGrace for the backend to return. It reports
// whether it did.
func waitGrace(done <-chan outcome) bool {
	t := time.NewTimer(abandonGrace)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
