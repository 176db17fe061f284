package executor

import (
	"context"
	"fmt"
	"runtime/debug"
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
type callState struct {
	e      *Executor
	callID string
	jobID  JobID
	tool   string
	agent  string
	job    *job
	ticket *keylock.Ticket // taken at submission; nil without resources
	locked bool            // the ticket's keys are granted
	// refused is the result of a call that failed at admission (a
	// panicking ResourceDeclarer).
	refused *tool.Result
}

type stateKey struct{}

func stateFrom(ctx context.Context) *callState {
	cs, _ := ctx.Value(stateKey{}).(*callState)
	return cs
}

// admit is a call's submission: it takes the call's lock tickets (so that
// submission order is lock order) and announces the call. It returns nil
// for a call nothing needs to follow, without allocating.
func (e *Executor) admit(call *tool.Call, entry *registry.Entry, j *job) *callState {
	var rs []tool.Resource
	var refused *tool.Result
	if entry != nil {
		if d, ok := entry.Tool.(tool.ResourceDeclarer); ok {
			rs, refused = declared(d, call)
		}
	}
	if len(rs) == 0 && refused == nil && j == nil && !e.hub.active() {
		return nil
	}
	cs := &callState{e: e, callID: call.ID, tool: call.Name, agent: call.Agent, job: j, refused: refused}
	if j != nil {
		cs.jobID = j.id
	}
	if len(rs) > 0 {
		cs.ticket = e.enqueue(cs.owner(), rs)
	}
	cs.emit(tool.Event{Kind: tool.EventSubmitted})
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

func (e *Executor) enqueue(owner string, rs []tool.Resource) *keylock.Ticket {
	var one [1]keylock.Request
	reqs := one[:0]
	if len(rs) > 1 {
		reqs = make([]keylock.Request, 0, len(rs))
	}
	for _, r := range rs {
		reqs = append(reqs, keylock.Request{Key: r.Key, Exclusive: r.Access == tool.Write})
	}
	return e.locks.Enqueue(owner, reqs)
}

func (cs *callState) owner() string {
	if cs.callID != "" {
		return cs.callID
	}
	return string(cs.jobID)
}

// bind returns ctx carrying the state, and an emitter when anyone listens.
func (cs *callState) bind(ctx context.Context) context.Context {
	ctx = context.WithValue(ctx, stateKey{}, cs)
	if cs.job != nil || cs.e.hub.active() {
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

// emit stamps ev with the call's identity and hands it to the job and the
// subscribers. Backends and extensions reach it through tool.Emit.
func (cs *callState) emit(ev tool.Event) {
	if cs.job == nil && !cs.e.hub.active() {
		return
	}
	ev.CallID, ev.JobID, ev.Tool, ev.Agent = cs.callID, string(cs.jobID), cs.tool, cs.agent
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	if cs.job != nil {
		cs.job.observe(&ev)
	}
	cs.e.hub.publish(ev)
}

func (cs *callState) started(attempt int) {
	cs.emit(tool.Event{Kind: tool.EventStarted, Attempt: attempt})
}

func (cs *callState) queued(reason string) {
	cs.emit(tool.Event{Kind: tool.EventQueued, Reason: reason})
}

// finish announces the result, releases the locks and completes the job.
func (cs *callState) finish(res *tool.Result) {
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
	cs.release()
	if cs.job != nil {
		cs.e.jobs.complete(cs.job, res)
	}
}

func (cs *callState) release() {
	cs.ticket.Release() // nil-safe and idempotent
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
	if cs != nil && cs.ticket != nil && cs.sameResources(rs) {
		return nil, nil
	}
	if cs == nil {
		if len(rs) == 0 {
			return nil, nil
		}
		tk := e.enqueue(req.Call.ID, rs)
		if ferr := e.awaitLocks(ctx, tk, nil); ferr != nil {
			tk.Release()
			return nil, ferr
		}
		return tk, nil
	}
	cs.ticket.Release()
	cs.ticket, cs.locked = nil, false
	if len(rs) > 0 {
		cs.ticket = e.enqueue(cs.owner(), rs)
	}
	return nil, nil
}

// sameResources reports whether rs names the keys the ticket was taken for.
func (cs *callState) sameResources(rs []tool.Resource) bool {
	return cs.ticket.Matches(toRequests(rs))
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
