package executor

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// JobID identifies an async job. Ids are "job-" and 128 random bits:
// unique across executors and processes.
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

// JobStatus is a snapshot of a job.
type JobStatus struct {
	ID     JobID
	CallID string
	Tool   string
	Agent  string
	State  JobState
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
}

type job struct {
	id     JobID
	seq    uint64
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
		s.Reason = ev.Reason
	case tool.EventApprovalRequested:
		s.State, s.Reason = JobAwaitingApproval, ev.Reason
	case tool.EventApprovalDecided:
		s.State, s.Reason = JobPending, ""
	case tool.EventStarted:
		s.State, s.Reason = JobRunning, ""
		if s.StartedAt.IsZero() {
			s.StartedAt = ev.Time
		}
	}
}

type jobTable struct {
	mu       sync.Mutex
	seq      uint64
	byID     map[JobID]*job
	finished []*job // in the order they finished, for retention
	ttl      time.Duration
	max      int
}

func (t *jobTable) add(call tool.Call, now time.Time) *job {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pruneLocked(now)
	t.seq++
	// Ids are globally unique (128 random bits), not per process: jobs of
	// several instances can share a store, a log or a dashboard.
	j := &job{id: JobID("job-" + rand.Text()), seq: t.seq, done: make(chan struct{})}
	j.status = JobStatus{ID: j.id, CallID: call.ID, Tool: call.Name, Agent: call.Agent, State: JobPending, SubmittedAt: now}
	if t.byID == nil {
		t.byID = make(map[JobID]*job)
	}
	t.byID[j.id] = j
	return j
}

func (t *jobTable) complete(j *job, res *tool.Result) {
	now := time.Now()
	j.mu.Lock()
	j.status.State, j.status.Reason = JobDone, ""
	j.status.CompletedAt, j.status.Result = now, res
	j.mu.Unlock()
	// Into the retention list before waking the waiters, so that a caller
	// whose Wait returned sees the job counted among the finished ones.
	t.mu.Lock()
	t.finished = append(t.finished, j)
	t.pruneLocked(now)
	t.mu.Unlock()
	close(j.done)
}

// pruneLocked drops finished jobs past the retention bounds, oldest first.
func (t *jobTable) pruneLocked(now time.Time) {
	n := 0
	for n < len(t.finished) {
		j := t.finished[n]
		if len(t.finished)-n <= t.max && now.Sub(j.status.CompletedAt) < t.ttl {
			break
		}
		delete(t.byID, j.id)
		t.finished[n] = nil
		n++
	}
	if n > 0 {
		t.finished = t.finished[n:]
		// Re-slicing walks the backing array forward; copy once it is
		// mostly dead space so memory stays bounded.
		if cap(t.finished) > 2*len(t.finished)+64 {
			t.finished = slices.Clone(t.finished)
		}
	}
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

// Submit starts call as an async job and returns its id at once.
//
// The job runs the same pipeline as Execute. It keeps ctx's values (the
// principal, trace ids) but not its cancellation or deadline: a job
// outlives the request that submitted it. Cancel stops it; the call's own
// timeout still bounds each run of its backend. Submit fails only when ctx
// is already done.
func (e *Executor) Submit(ctx context.Context, call tool.Call) (JobID, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return "", tool.AsError(err)
	}
	start := time.Now()
	j := e.jobs.add(call, start)
	jctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	j.cancel = cancel
	entry, _ := e.reg.Lookup(call.Name)
	cs := e.admit(&call, entry, j)
	go func() {
		defer cancel()
		e.run(jctx, &extension.Request{Call: call}, entry, cs, start)
	}()
	return j.id, nil
}

// Status returns a snapshot of the job. An unknown or dropped job gives an
// error wrapping ErrJobNotFound.
func (e *Executor) Status(id JobID) (JobStatus, error) {
	j, err := e.jobs.get(id)
	if err != nil {
		return JobStatus{}, err
	}
	return j.snapshot(), nil
}

// Wait blocks until the job is done and returns its result, with the
// result's *tool.Error as the error (nil on success), as Execute does. If
// ctx ends first, Wait returns a nil result and ctx's error; the job goes
// on.
func (e *Executor) Wait(ctx context.Context, id JobID) (*tool.Result, error) {
	j, err := e.jobs.get(id)
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	res := j.snapshot().Result
	if res.Error != nil {
		return res, res.Error
	}
	return res, nil
}

// Cancel cancels the job: a job still pending or awaiting approval never
// runs its backend, and a running backend's context is cancelled (a shell
// tool's whole process tree is killed). The job then finishes with
// tool.StatusCancelled. Cancelling a finished job does nothing.
func (e *Executor) Cancel(id JobID) error {
	j, err := e.jobs.get(id)
	if err != nil {
		return err
	}
	j.cancel()
	return nil
}

// Jobs returns snapshots of the jobs that match f, in submission order:
// those running or waiting, and the finished ones still kept.
func (e *Executor) Jobs(f JobFilter) []JobStatus {
	t := &e.jobs
	t.mu.Lock()
	t.pruneLocked(time.Now())
	all := make([]*job, 0, len(t.byID))
	for _, j := range t.byID {
		all = append(all, j)
	}
	t.mu.Unlock()
	slices.SortFunc(all, func(a, b *job) int { return cmp.Compare(a.seq, b.seq) })
	var out []JobStatus
	for _, j := range all {
		s := j.snapshot()
		if (len(f.States) == 0 || slices.Contains(f.States, s.State)) &&
			(f.Tool == "" || f.Tool == s.Tool) && (f.Agent == "" || f.Agent == s.Agent) {
			out = append(out, s)
		}
	}
	return out
}
