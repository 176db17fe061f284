package executor

import (
	"cmp"
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/keylock"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// abandonGrace is how long a detached call waits, after its deadline, for
// its backend to really stop before leaving it running (runTool).
const abandonGrace = time.Second

// callState is the executor's record of one call. The call's context
// carries it under stateKey for the innermost handler; an inner call (a
// sub-agent) has its own, which hides the outer one.
type callState struct {
	e *Executor
	// call is the call as received, which events, result and history echo;
	// req.Call is the pipeline's copy, which extensions may rewrite.
	call     ident
	req      extension.Request
	entry    *registry.Entry // nil for an unknown tool
	start    time.Time
	job      *job
	refused  *tool.Result  // failed at admission (a panicking ResourceDeclarer)
	invalid  *tool.Error   // why the arguments failed validation at admission
	validate time.Duration // how long that validation took

	// mu guards the fields up to batch: several runs of one call (a hedge)
	// use them at once.
	mu       sync.Mutex
	lease    *lease // the call's place in the lock queues; nil once given up
	ended    bool   // the call has returned; a later run queues anew
	lockless bool   // a chain run outside Execute: nothing would release its locks
	moved    bool   // relock queued the call for other resources than at admission
	// batch is set on a call of an ExecuteBatch of several, which keeps its
	// place when it steps aside (see waitsForLater); started is set when
	// the batch starts the call.
	batch   *batch
	started atomic.Bool
	waited  atomic.Int64 // nanoseconds queued for locks and slots so far (WithMaxWait)
}

// ident is the identity of a call as received, which events, results and
// history records carry. JobID is empty for a call that is not a job.
type ident struct {
	ID, Name, Agent, Provider, Session string
	Principal, Tenant                  string
	JobID                              JobID
}

func identOf(c *tool.Call) ident {
	return ident{ID: c.ID, Name: c.Name, Agent: c.Agent, Provider: c.Provider, Session: c.Session,
		Principal: c.Principal.ID, Tenant: c.Principal.Tenant}
}

type stateKey struct{}

// admit submits a call: it looks the tool up, validates the arguments,
// takes the lock ticket of their resources (submission order is lock
// order) and announces the call. id and j are the call's job id and
// in-memory job, b its batch; start is zero in a batch, which sets it.
func (e *Executor) admit(call tool.Call, id JobID, j *job, b *batch, start time.Time) *callState {
	cs := &callState{e: e, call: identOf(&call), req: extension.Request{Call: call}, start: start, job: j, batch: b}
	cs.call.JobID = id
	cs.entry, _ = e.reg.Lookup(call.Name)
	var rs []tool.Resource
	if cs.entry != nil {
		// Validated here, so the locks are for the arguments the backend
		// runs with: defaults filled, nulls dropped.
		began := time.Now()
		args, ferr := e.validate(cs.entry, call.Args)
		cs.validate, cs.invalid = time.Since(began), ferr
		if ferr == nil {
			cs.req.Call.Args = args
			if d, ok := cs.entry.Tool.(tool.ResourceDeclarer); ok {
				if _, err := e.Authorize(call.Principal, &cs.entry.Spec); err != nil {
					// The tool's code does not run on the arguments of a
					// principal it is hidden from, whose call is answered
					// as a name no tool has. Should an extension outside
					// auth change the principal to one auth lets through,
					// the call queues when it reaches its backend (hold).
					cs.moved = true
				} else {
					rs, cs.refused = declared(d, &cs.req.Call)
				}
			}
		}
	}
	cs.lease = &lease{tk: e.locks.Enqueue(cs, toRequests(rs)), users: 1}
	cs.req.Queue = cs
	cs.emit(tool.Event{Kind: tool.EventSubmitted})
	return cs
}

// StepAside implements extension.LockQueue: the call gives up its place in
// the lock queues while wait runs, and queues again at the back when a run
// next reaches its backend (hold). A place another run uses (a hedge, or
// one that outlived the call) is kept, and so is a batched call's.
func (cs *callState) StepAside(wait func()) {
	cs.mu.Lock()
	if l := cs.lease; l != nil && l.users == 1 && l.tk != nil && cs.batch == nil && !cs.ended {
		cs.drop(l)
	}
	cs.mu.Unlock()
	wait()
}

// Behind implements extension.LockQueue: the call's lock ticket still
// waits for a key, or the call stepped aside and has not queued again.
func (cs *callState) Behind() bool {
	cs.mu.Lock()
	l := cs.lease
	cs.mu.Unlock()
	if l == nil {
		return true // stepped aside
	}
	if l.tk == nil {
		return false
	}
	_, _, _, waiting := l.tk.Waiting()
	return waiting
}

// lease is a place in the lock queues and the count of its users: the
// call until it ends or moves, and each run from hold to unhold. The last
// user releases the ticket, so a run that outlives its call (a detached
// backend) or its place (a hedge's other run) keeps its locks until it
// returns.
type lease struct {
	tk    *keylock.Ticket // nil when the call names no key
	users int
}

// drop ends one use of l; the last releases its ticket. cs.mu is held.
func (cs *callState) drop(l *lease) {
	if l.users--; l.users == 0 {
		l.tk.Release()
		if cs.lease == l {
			cs.lease = nil
		}
	}
}

// hold counts a run among the users of the call's place in the lock
// queues, until unhold, and returns that place. When the place is gone or
// moved, or the arguments were rewritten, it first queues for req's
// resources (relock), which keeps the place when they match.
func (cs *callState) hold(req *extension.Request, rewritten bool) (*lease, *tool.Error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.lockless {
		return nil, nil
	}
	if rewritten || cs.lease == nil || cs.moved {
		if ferr := cs.e.relock(cs, req); ferr != nil {
			return nil, ferr
		}
	}
	l := cs.lease
	if l != nil {
		l.users++
	}
	return l, nil
}

// unhold ends a run's use of l (nil for none).
func (cs *callState) unhold(l *lease) {
	if l == nil {
		return
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.drop(l)
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

// toRequests turns resources into lock requests: a writer holds its key alone.
func toRequests(rs []tool.Resource) []keylock.Request {
	out := make([]keylock.Request, len(rs))
	for i, r := range rs {
		out[i] = keylock.Request{Key: r.Key, Exclusive: r.Access == tool.Write}
	}
	return out
}

// owner names the call to the calls of its tenant queued behind it for a
// lock (the call itself is its tickets' owner): its id, else its job's.
func (cs *callState) owner() string { return cmp.Or(cs.call.ID, string(cs.call.JobID)) }

// bind returns ctx carrying the state, and an emitter when anyone listens.
func (cs *callState) bind(ctx context.Context) context.Context {
	ctx = context.WithValue(ctx, stateKey{}, cs)
	if cs.listened() {
		fn := tool.Emitter(cs.emit)
		// The caller's emitter (an MCP server's progress) keeps receiving.
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
// a subscriber.
func (cs *callState) listened() bool { return cs.job != nil || cs.e.hub.active() }

// emit stamps ev with the call's identity and hands it to the job and the
// subscribers, when anyone listens.
func (cs *callState) emit(ev tool.Event) {
	if !cs.listened() {
		return
	}
	c := &cs.call
	ev.CallID, ev.JobID, ev.Tool, ev.Agent, ev.Provider = c.ID, string(c.JobID), c.Name, c.Agent, c.Provider
	ev.Principal, ev.Tenant, ev.Session, ev.Time = c.Principal, c.Tenant, c.Session, time.Now()
	if cs.job != nil {
		cs.job.observe(&ev)
	}
	cs.e.hub.publish(ev)
}

// finish announces the result, ends the call (end) and completes the job.
func (cs *callState) finish(res *tool.Result) {
	ev := tool.Event{Kind: tool.EventFailed, Result: res}
	switch res.Status {
	case tool.StatusSucceeded:
		ev.Kind = tool.EventCompleted
	case tool.StatusCancelled:
		ev.Kind = tool.EventCancelled
	}
	if res.Error != nil && cs.listened() { // the text is built only for a listener
		ev.Reason = res.Error.Error()
	}
	cs.emit(ev)
	cs.end()
	if cs.job != nil {
		cs.e.jobs.complete(cs.job, res)
	}
}

// end marks the call returned and ends its own use of its place (a run
// still using it keeps the locks until unhold). A second end does nothing.
func (cs *callState) end() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.ended {
		return
	}
	cs.ended = true
	if cs.lease != nil {
		cs.drop(cs.lease)
	}
}

// awaitLocks waits for every key of tk, or refuses at once under Refuse.
func (e *Executor) awaitLocks(ctx context.Context, tk *keylock.Ticket, cs *callState) *tool.Error {
	key, excl, owner, ok := tk.Waiting()
	if !ok { // granted
		return nil
	}
	access := "read"
	if excl {
		access = "write"
	}
	// Call ids are per tenant: another tenant's is not this caller's to read.
	holder := "a call of another tenant"
	if h, _ := owner.(*callState); h == cs {
		// Its old place, kept by a run still using it: its own id would
		// tell the model the call holds the file against itself.
		holder = "an earlier run of this call that is still running"
	} else if h != nil && h.call.Tenant == cs.call.Tenant {
		holder = fmt.Sprintf("call %q", clipField(h.owner()))
	}
	if e.conflict == Refuse {
		return tool.Errorf(tool.CodeConflict, "cannot %s %q now: %s holds it or is ahead in line; retry when it has finished", access, key, holder)
	}
	return cs.queue(ctx, fmt.Sprintf("lock: waiting to %s %q behind %s", access, key, holder), tk.Wait,
		func(waited time.Duration, deadline string) *tool.Error {
			return tool.Errorf(tool.CodeConflict, "waited %v to %s %q behind %s and gave up at %s", waited, access, key, holder, deadline)
		})
}

// queue announces why the call waits, then waits, bounded by ctx and by
// what WithMaxWait leaves of the call's waits in all. It returns nil once
// wait succeeds, the caller's cancellation, or else giveUp's error.
func (cs *callState) queue(ctx context.Context, reason string, wait func(context.Context) error,
	giveUp func(waited time.Duration, deadline string) *tool.Error) *tool.Error {
	cs.emit(tool.Event{Kind: tool.EventQueued, Reason: reason})
	wctx := ctx
	if cs.e.maxWait > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, cs.e.maxWait-time.Duration(cs.waited.Load()))
		defer cancel()
	}
	began := time.Now()
	err := wait(wctx)
	waited := time.Duration(cs.waited.Add(int64(time.Since(began))))
	switch {
	case err == nil:
		return nil
	case ctx.Err() == context.Canceled:
		return tool.AsError(ctx.Err())
	case ctx.Err() != nil:
		return giveUp(waited.Round(time.Millisecond), "the caller's deadline: retry later, or give the call a longer deadline")
	}
	// No deadline the caller gives lifts the executor's bound.
	return giveUp(waited.Round(time.Millisecond), fmt.Sprintf("the deadline WithMaxWait sets (%v for all of a call's waits): retry later", cs.e.maxWait))
}

// relock queues the call for the resources req's arguments declare, unless
// its place already names them, and leaves the old place to the runs still
// using it; the new place queues behind it. cs.mu is held.
func (e *Executor) relock(cs *callState, req *extension.Request) *tool.Error {
	d, ok := req.Tool.(tool.ResourceDeclarer)
	if !ok {
		return nil
	}
	rs, refused := declared(d, &req.Call)
	if refused != nil {
		return refused.Error // still aside: the call's next run asks again
	}
	old := cs.lease
	reqs := toRequests(rs)
	if old != nil && old.tk.Matches(reqs) {
		return nil
	}
	tk := e.locks.Enqueue(cs, reqs)
	if ferr := cs.batch.waitsForLater(cs, tk); ferr != nil {
		tk.Release()
		return ferr
	}
	cs.moved = true
	cs.lease = &lease{tk: tk}
	if !cs.ended { // the call's own use moves to the new place
		cs.lease.users = 1
		if old != nil {
			cs.drop(old)
		}
	}
	return nil
}
