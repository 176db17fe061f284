package executor

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// JobID identifies an async job. Ids are "job-" and 128 random bits, unique
// across executors and processes: jobs of several instances can share a
// store, a log or a dashboard.
type JobID string

// JobState is where a job is in its life.
type JobState string

// The states of a job, in order. A job may go back from awaiting approval
// to pending (approved, now queued for a lock or a slot).
const (
	// JobPending: submitted, not running yet (in the extension chain, or
	// queued for a lock or a concurrency slot: see JobStatus.Reason).
	JobPending JobState = "pending"
	// JobAwaitingApproval: an approval extension asked for a decision
	// (tool.EventApprovalRequested) and none has come yet.
	JobAwaitingApproval JobState = "awaiting_approval"
	// JobRunning: the backend is running.
	JobRunning JobState = "running"
	// JobDone: finished; JobStatus.Result says how.
	JobDone JobState = "done"
)

// ErrJobNotFound is returned (wrapped) for a job id the executor does not
// know, or no longer keeps (see WithJobRetention).
var ErrJobNotFound = errors.New("no such job")

// JobStatus is a snapshot of a job. The in-memory store keeps its CallID,
// Tool and Agent (and its Result's CallID and Tool) cut to
// MaxRecordFieldBytes, as History does, and its Reason to four times it.
type JobStatus struct {
	ID     JobID
	CallID string
	Tool   string
	Agent  string
	// Principal and Tenant are the ID and tenant of the principal the job
	// was submitted for; ids are per tenant.
	Principal string
	Tenant    string
	State     JobState
	// Reason says why a pending job waits ("lock: ...", "limit: ...") or
	// what an approver was asked.
	Reason      string
	SubmittedAt time.Time
	// StartedAt is when the backend first started; zero if it never did.
	StartedAt time.Time
	// CompletedAt is when the job finished; zero until then.
	CompletedAt time.Time
	// Result is set when State is JobDone. Treat it as read-only.
	Result *tool.Result
}

// JobFilter selects jobs. Empty fields match everything.
type JobFilter struct {
	States []JobState
	Tool   string
	Agent  string
	// For, when set, selects the jobs of exactly that principal: its ID
	// and tenant (roles aside), an empty ID included, so that a filter
	// built from an anonymous caller selects the anonymous calls, not
	// everyone's. To show callers their own, set For: &caller. Tenant
	// selects the jobs of every principal of one tenant; an empty Tenant
	// selects every tenant's, not those of the principals of no tenant (a
	// view for those checks the tenant itself). Status, Wait and Cancel
	// take an id alone: a host that lets callers name a job checks
	// JobStatus.Principal and Tenant first.
	For    *tool.Principal
	Tenant string
}

// job is a job of the in-memory store.
type job struct {
	seq    uint64 // numbers the jobs in submission order
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	status JobStatus
}

func (j *job) snapshot() JobStatus {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.status
}

// observe moves the job along as its call's events go by.
func (j *job) observe(ev *tool.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := &j.status
	if s.State == JobDone {
		return
	}
	switch ev.Kind {
	case tool.EventQueued:
		s.Reason = clipReason(ev.Reason)
	case tool.EventApprovalRequested:
		s.State, s.Reason = JobAwaitingApproval, clipReason(ev.Reason)
	case tool.EventApprovalDecided:
		s.State, s.Reason = JobPending, ""
	case tool.EventStarted:
		s.State, s.Reason = JobRunning, ""
		if s.StartedAt.IsZero() {
			s.StartedAt = ev.Time
		}
	}
}

// jobTable is the in-memory JobStore, the default: jobs run in this
// process, finished ones kept within WithJobRetention's bounds.
type jobTable struct {
	e        *Executor // set by Attach
	mu       sync.Mutex
	seq      uint64
	byID     map[JobID]*job
	finished []*job // in the order they finished, for retention
	ttl      time.Duration
	max      int
}

func (t *jobTable) complete(j *job, res *tool.Result) {
	now := time.Now()
	if r := *res; len(r.CallID) > MaxRecordFieldBytes || len(r.Tool) > MaxRecordFieldBytes { // kept long after, as History's are
		r.CallID, r.Tool = clipField(r.CallID), clipField(r.Tool)
		res = &r
	}
	j.mu.Lock()
	j.status.State, j.status.Reason = JobDone, ""
	j.status.CompletedAt, j.status.Result = now, res
	j.mu.Unlock()
	// Counted among the finished before Wait returns.
	t.mu.Lock()
	t.finished = append(t.finished, j)
	t.pruneLocked(now)
	t.mu.Unlock()
	close(j.done)
}

// pruneLocked drops finished jobs past the retention bounds, oldest first.
func (t *jobTable) pruneLocked(now time.Time) {
	n := 0
	for n < len(t.finished) && (len(t.finished)-n > t.max || now.Sub(t.finished[n].status.CompletedAt) >= t.ttl) {
		delete(t.byID, t.finished[n].status.ID)
		n++
	}
	t.finished = slices.Delete(t.finished, 0, n)
}

func (t *jobTable) get(id JobID) (*job, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pruneLocked(time.Now())
	if j := t.byID[id]; j != nil {
		return j, nil
	}
	return nil, fmt.Errorf("%w %q: it never existed, or finished more than %v ago or before the last %d finished jobs", ErrJobNotFound, id, t.ttl, t.max)
}

// JobStore keeps an executor's async jobs: Submit, Status, Wait, Cancel
// and Jobs go through it. Without WithJobStore jobs run and live in this
// process's memory; a shared store (backend/postgres) keeps them in a
// database, so that any instance runs a job and every instance sees it.
//
// The store runs jobs through its executor: New calls the store's Attach
// with a JobRunner, once, before it returns. A store runs no job before.
type JobStore interface {
	// Attach gives the store its executor's runner; an error fails New.
	Attach(run JobRunner) error
	// Submit keeps call as a new job and returns its id, unique across
	// stores and instances. When Submit returns, the job is kept (durably,
	// for a shared store) and will run.
	Submit(ctx context.Context, call tool.Call) (JobID, error)
	// Status returns a snapshot of a job; an id the store does not know
	// (or no longer keeps) gives an error wrapping ErrJobNotFound.
	Status(ctx context.Context, id JobID) (JobStatus, error)
	// Wait blocks until the job is done and returns its status (with
	// Result set), or ctx's error when ctx ends first.
	Wait(ctx context.Context, id JobID) (JobStatus, error)
	// Cancel cancels a job wherever it runs; a job that has not started
	// never runs. Cancelling a finished job does nothing.
	Cancel(ctx context.Context, id JobID) error
	// Jobs returns the jobs that match f, in submission order.
	Jobs(ctx context.Context, f JobFilter) ([]JobStatus, error)
}

// JobRunner runs jobs through the executor it belongs to. A JobStore gets
// one from Attach.
type JobRunner struct{ e *Executor }

// Run runs call as the job id through the executor's pipeline, as Execute
// does, and returns its result, never nil; its events and history record
// carry id. Cancelling ctx cancels the call. The call acts for the
// principal Submit fixed, never for one ctx carries (a worker's). The zero
// JobRunner's Run fails the call.
func (r JobRunner) Run(ctx context.Context, id JobID, call tool.Call) *tool.Result {
	if r.e == nil {
		return tool.Fail(&call, tool.CodeInternal, fmt.Sprintf("job %s: the JobRunner is the zero value: use the one executor.New gave the store's Attach", id))
	}
	if _, ok := tool.PrincipalFrom(ctx); ok {
		// Hidden, or auth gives an anonymous job the worker's principal (a past bug).
		ctx = tool.WithPrincipal(ctx, tool.Principal{})
	}
	return r.e.run(ctx, r.e.admit(call, id, nil, nil, time.Now()))
}

// Registry returns the registry of the runner's executor: a store reads a
// tool's annotations there (may a job of it run a second time?). The
// zero JobRunner has none (nil).
func (r JobRunner) Registry() *registry.Registry {
	if r.e == nil {
		return nil
	}
	return r.e.reg
}

// Attach implements JobStore.
func (t *jobTable) Attach(run JobRunner) error {
	t.e = run.e
	return nil
}

// Submit implements JobStore: the job runs in this process at once (lock
// tickets are taken here, so jobs on one resource run in submission
// order).
func (t *jobTable) Submit(ctx context.Context, call tool.Call) (JobID, error) {
	start := time.Now()
	id := JobID("job-" + rand.Text())
	// Not the submitting call's emitter: the job outlives it.
	jctx, cancel := context.WithCancel(tool.WithEmitter(context.WithoutCancel(ctx), nil))
	j := &job{cancel: cancel, done: make(chan struct{}), status: JobStatus{
		ID: id, CallID: clipField(call.ID), Tool: clipField(call.Name), Agent: clipField(call.Agent),
		Principal: call.Principal.ID, Tenant: call.Principal.Tenant, State: JobPending, SubmittedAt: start,
	}}
	t.mu.Lock()
	t.pruneLocked(start)
	t.seq++
	j.seq = t.seq
	t.byID[id] = j
	t.mu.Unlock()
	cs := t.e.admit(call, id, j, nil, start)
	go func() {
		defer cancel()
		t.e.run(jctx, cs)
	}()
	return id, nil
}

// Status implements JobStore.
func (t *jobTable) Status(ctx context.Context, id JobID) (JobStatus, error) {
	if err := ctx.Err(); err != nil {
		return JobStatus{}, err
	}
	j, err := t.get(id)
	if err != nil {
		return JobStatus{}, err
	}
	return j.snapshot(), nil
}

// Wait implements JobStore.
func (t *jobTable) Wait(ctx context.Context, id JobID) (JobStatus, error) {
	j, err := t.get(id)
	if err != nil {
		return JobStatus{}, err
	}
	select {
	case <-j.done:
		return j.snapshot(), nil
	case <-ctx.Done():
		return JobStatus{}, ctx.Err()
	}
}

// Cancel implements JobStore.
func (t *jobTable) Cancel(ctx context.Context, id JobID) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j, err := t.get(id)
	if err != nil {
		return err
	}
	j.cancel()
	return nil
}

// Jobs implements JobStore: the jobs running or waiting, and the finished
// ones still kept.
func (t *jobTable) Jobs(ctx context.Context, f JobFilter) ([]JobStatus, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.pruneLocked(time.Now())
	all := slices.SortedFunc(maps.Values(t.byID), func(a, b *job) int { return cmp.Compare(a.seq, b.seq) })
	t.mu.Unlock()
	var out []JobStatus
	for _, j := range all {
		if s := j.snapshot(); f.Match(&s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// Match reports whether the filter selects s: the rule a JobStore applies.
func (f *JobFilter) Match(s *JobStatus) bool {
	return (len(f.States) == 0 || slices.Contains(f.States, s.State)) &&
		(f.Tool == "" || f.Tool == s.Tool) && (f.Agent == "" || f.Agent == s.Agent) &&
		actsFor(f.For, f.Tenant, s.Principal, s.Tenant)
}

// Submit starts call as an async job and returns its id at once.
//
// The job runs the same pipeline as Execute, as ctx's principal when the
// call names none (whichever instance runs it); in memory (the default) it
// keeps ctx's other values too (trace ids), never its cancellation,
// deadline or event emitter: a job outlives its request. Cancel stops it;
// the call's timeout bounds each run of its backend. Submit fails when ctx
// is done or the job store cannot keep the job. A nil ctx is the caller's
// bug, as in the standard library.
//
// In memory, a pending job costs a goroutine and its call (up to
// WithMaxArgBytes) until it ends, and nothing bounds how many are pending:
// WithMaxQueue does not count jobs waiting for a lock or an approver. A
// host that lets others submit bounds each one's pending jobs (Jobs,
// filtered by For and States, counts them).
func (e *Executor) Submit(ctx context.Context, call tool.Call) (JobID, error) {
	if err := ctx.Err(); err != nil {
		return "", tool.AsError(err)
	}
	call.Principal = extension.CallPrincipal(ctx, call.Principal)
	return e.jobStore.Submit(ctx, call)
}

// Status is StatusContext without a deadline; with a shared job store,
// prefer StatusContext.
func (e *Executor) Status(id JobID) (JobStatus, error) {
	return e.StatusContext(context.Background(), id)
}

// StatusContext returns a snapshot of the job, asking the job store under
// ctx: an unknown or dropped job gives an error wrapping ErrJobNotFound,
// and a ctx that ends first gives ctx's error.
func (e *Executor) StatusContext(ctx context.Context, id JobID) (JobStatus, error) {
	return e.jobStore.Status(ctx, id)
}

// Wait blocks until the job is done and returns its result and error, as
// Execute does. If ctx ends first, it returns nil and ctx's error; the job
// goes on.
func (e *Executor) Wait(ctx context.Context, id JobID) (*tool.Result, error) {
	st, err := e.jobStore.Wait(ctx, id)
	if err != nil {
		return nil, err
	}
	if st.Result == nil {
		return nil, fmt.Errorf("executor: job %s is done but its store gave no result: the job store is broken", id)
	}
	return st.Result, st.Result.Err()
}

// Cancel cancels the job: a pending one never runs its backend, a running
// backend's context is cancelled (a shell tool's process tree is killed),
// and the job finishes with tool.StatusCancelled; a finished job is left
// alone. It is CancelContext without a deadline, which a shared store wants.
func (e *Executor) Cancel(id JobID) error {
	return e.CancelContext(context.Background(), id)
}

// CancelContext is Cancel asking the job store under ctx: a ctx that ends
// first gives ctx's error. With a shared store, a job running on another
// instance is cancelled there.
func (e *Executor) CancelContext(ctx context.Context, id JobID) error {
	return e.jobStore.Cancel(ctx, id)
}

// Jobs is JobsContext without a deadline; it returns nil when the job
// store fails (JobsContext says why).
func (e *Executor) Jobs(f JobFilter) []JobStatus {
	out, _ := e.JobsContext(context.Background(), f)
	return out
}

// JobsContext returns snapshots of the jobs that match f, in submission
// order: those not finished and the finished ones still kept (with a
// shared store, every instance's). A ctx that ends first gives ctx's
// error. A Tool or Agent filter is cut as the jobs' are (JobStatus).
func (e *Executor) JobsContext(ctx context.Context, f JobFilter) ([]JobStatus, error) {
	f.Tool, f.Agent = clipField(f.Tool), clipField(f.Agent)
	return e.jobStore.Jobs(ctx, f)
}
