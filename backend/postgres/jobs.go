package postgres

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/tool"
)

// jobKind is the River kind of Toolbelt's jobs.
const jobKind = "toolbelt_call"

// CommitGrace is how long Submit still waits for its job's commit to be
// answered once its context has ended. The commit is not interrupted at
// once (the server may have carried it out while its answer was on the
// way), but a network gone silent would hold Submit, and a connection of
// the pool, for as long as TCP takes to give up: tens of minutes.
const CommitGrace = 15 * time.Second

// callArgs is a job: one tool call. The call's arguments travel as bytes
// (base64 in River's jsonb), because jsonb refuses the escape \u0000 a
// model may put in them.
type callArgs struct {
	Job  executor.JobID `json:"toolbelt_job"`
	Call tool.Call      `json:"call"`
	Args []byte         `json:"args,omitempty"`
	// Exact is the call (without its arguments), gob-encoded, when JSON
	// cannot keep it as it is: a NUL (jsonb refuses it) or invalid UTF-8
	// (JSON turns every such byte into U+FFFD, so "alice\xff" and
	// "alice\xfe" would both run as "alice\uFFFD") in a principal's id,
	// tenant or roles, a session. Call then keeps only its id, name and
	// agent, made storable, for lists and filters.
	Exact []byte `json:"exact,omitempty"`
	// Whole is how jobs submitted before Exact kept a call holding a NUL:
	// its JSON bytes. It is read, no longer written.
	Whole []byte `json:"whole,omitempty"`
}

// Kind implements river.JobArgs.
func (callArgs) Kind() string { return jobKind }

// call returns the job's call as it was submitted. A call kept in a form
// that cannot be read is an error, never a call of someone else: the
// stripped Call names no principal.
func (a *callArgs) call() (tool.Call, error) {
	c := a.Call
	switch {
	case a.Exact != nil:
		var exact tool.Call
		if err := gob.NewDecoder(bytes.NewReader(a.Exact)).Decode(&exact); err != nil {
			return a.Call, fmt.Errorf("the call kept with job %s cannot be read: %w", a.Job, err)
		}
		c = exact
	case a.Whole != nil:
		var whole tool.Call
		if err := json.Unmarshal(a.Whole, &whole); err != nil {
			return a.Call, fmt.Errorf("the call kept with job %s cannot be read: %w", a.Job, err)
		}
		c = whole
	}
	if a.Args != nil {
		c.Args = json.RawMessage(a.Args)
	}
	return c, nil
}

// keepsExactly reports whether b, the JSON of c, gives c back byte for
// byte and is storable in jsonb.
func keepsExactly(b []byte, c tool.Call) bool {
	if bytes.Contains(b, []byte(`\u0000`)) {
		return false
	}
	var back tool.Call
	if json.Unmarshal(b, &back) != nil {
		return false
	}
	if len(c.Principal.Roles) == 0 {
		c.Principal.Roles = nil // no roles, however written, is what JSON gives back
	}
	return reflect.DeepEqual(back, c)
}

// Defaults of JobsConfig.
const (
	// DefaultJobWorkers is how many jobs an instance runs at once when
	// JobsConfig.Workers is zero.
	DefaultJobWorkers = 10
	// NoWorkers, as JobsConfig.Workers, makes an instance that submits,
	// reads and cancels jobs but runs none.
	NoWorkers = -1
	// DefaultJobTimeout bounds one attempt of a job when JobsConfig.Timeout
	// is zero: jobs always have a finite timeout.
	DefaultJobTimeout = 10 * time.Minute
	// DefaultJobAttempts bounds the attempts of a job when
	// JobsConfig.MaxAttempts is zero.
	DefaultJobAttempts = 3
	// DefaultJobRetention is how long a finished job stays queryable when
	// JobsConfig.Retention is zero.
	DefaultJobRetention = 24 * time.Hour
	// DefaultJobsListed is how many finished jobs Jobs lists when
	// JobsConfig.Listed is zero: as many as the in-memory store keeps
	// (executor.DefaultJobsKept).
	DefaultJobsListed = executor.DefaultJobsKept
	// MaxJobsListed bounds what Jobs lists: at most this many jobs still
	// pending or running, and JobsConfig.Listed is at most this.
	MaxJobsListed = 10_000
)

// JobsConfig configures the job store (WithJobs).
type JobsConfig struct {
	// Workers is how many jobs this instance runs at once (zero:
	// DefaultJobWorkers; NoWorkers: none).
	Workers int
	// Timeout bounds one attempt of a job (zero: DefaultJobTimeout).
	Timeout time.Duration
	// RescueAfter is how long a job may stay running before another
	// instance takes it for dead and runs it again (default Timeout plus a
	// minute; never less). River measures it with the clock of the
	// instance that leads against the start the database recorded, so
	// raise it by as much as instances' clocks may run ahead of the
	// database's: one ahead by more than RescueAfter minus Timeout takes
	// jobs still running near their timeout for dead.
	RescueAfter time.Duration
	// MaxAttempts bounds the attempts of a job (zero: DefaultJobAttempts).
	MaxAttempts int
	// Retention is how long a finished job stays queryable (zero:
	// DefaultJobRetention). An instance with workers deletes older ones.
	Retention time.Duration
	// Listed is how many finished jobs Jobs lists: the last ones to
	// finish, as the in-memory store lists the last ones it keeps
	// (executor.WithJobRetention). Zero: DefaultJobsListed; at most
	// MaxJobsListed. Older finished jobs stay readable by id (Status,
	// Wait) for Retention.
	Listed int
	// Rerun lets a tool that is not idempotent run again on a later attempt
	// (after its instance died mid-run); by default such a job fails
	// instead, because its first attempt may have done its work.
	Rerun func(spec tool.Spec) bool
}

func (c JobsConfig) withDefaults() JobsConfig {
	if c.Workers == 0 {
		c.Workers = DefaultJobWorkers
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultJobTimeout
	}
	if c.RescueAfter <= c.Timeout {
		c.RescueAfter = c.Timeout + time.Minute
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultJobAttempts
	}
	if c.Retention <= 0 {
		c.Retention = DefaultJobRetention
	}
	if c.Listed <= 0 {
		c.Listed = DefaultJobsListed
	}
	c.Listed = min(c.Listed, MaxJobsListed)
	return c
}

// JobStore is an executor.JobStore on github.com/riverqueue/river: give it
// to executor.WithJobStore. A job is in the database when Submit returns;
// any instance with workers runs it through its executor, at least once:
// if the instance that runs it dies, another runs it again after
// RescueAfter. A tool that is not idempotent (Spec.Annotations.Idempotent
// or ReadOnly) is not silently run twice: a later attempt fails with a
// reason, unless JobsConfig.Rerun says it may run again. Status, Wait,
// Cancel and Jobs work from every instance.
//
// A job runs as the call that was submitted, byte for byte: its principal
// (id, tenant, roles) and session, even when they hold bytes JSON cannot
// keep (a NUL, invalid UTF-8), which are then kept in a binary form. A job
// whose kept call cannot be read fails; it never runs as someone else.
//
// The store serves one executor: executor.New attaches it (Attach), and
// its workers start then. Stop them with Stop (or Stores.Close).
//
// A job's status is River's, mapped: available, scheduled, retryable and
// pending are executor.JobPending, running is JobRunning, completed,
// cancelled and discarded are JobDone. A job waiting for an approval shows
// as running: the approval is in the approval store (Stores.Approvals).
type JobStore struct {
	cfg    JobsConfig
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	err    error // building the client failed: every method returns it
	// commitGrace is how long Submit waits for its commit's answer once
	// its context has ended (CommitGrace; tests shorten it).
	commitGrace time.Duration

	mu       sync.Mutex
	run      executor.JobRunner
	attached bool
	started  bool
}

func newJobStore(pool *pgxpool.Pool, cfg JobsConfig) *JobStore {
	s := &JobStore{cfg: cfg.withDefaults(), pool: pool, commitGrace: CommitGrace}
	cfg = s.cfg
	rc := &river.Config{
		JobTimeout:                  cfg.Timeout,
		RescueStuckJobsAfter:        cfg.RescueAfter,
		MaxAttempts:                 cfg.MaxAttempts,
		CompletedJobRetentionPeriod: cfg.Retention,
		CancelledJobRetentionPeriod: cfg.Retention,
		DiscardedJobRetentionPeriod: cfg.Retention,
		FetchPollInterval:           100 * time.Millisecond,
		FetchCooldown:               20 * time.Millisecond,
	}
	if cfg.Workers > 0 {
		workers := river.NewWorkers()
		if err := river.AddWorkerSafely(workers, &callWorker{s: s}); err != nil {
			s.err = fmt.Errorf("postgres: jobs: %w", err)
			return s
		}
		rc.Workers = workers
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}}
	}
	s.client, s.err = river.NewClient(riverpgxv5.New(pool), rc)
	if s.err != nil {
		s.err = fmt.Errorf("postgres: jobs: %w", s.err)
	}
	return s
}

// Attach implements executor.JobStore: executor.New calls it with the
// runner of the executor the store serves, and the workers start.
func (s *JobStore) Attach(run executor.JobRunner) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if s.attached {
		return errors.New("postgres: this JobStore is already attached to an executor: give each executor a store of its own (postgres.New for each)")
	}
	s.run, s.attached = run, true
	if s.cfg.Workers > 0 {
		// Background: the workers live until Stop, not as long as some
		// caller's request.
		if err := s.client.Start(context.Background()); err != nil {
			return fmt.Errorf("postgres: jobs: start the workers: %w", err)
		}
		s.started = true
	}
	return nil
}

// Stop stops this instance's workers: it fetches no more jobs and lets the
// running ones finish until ctx ends, then cancels them (they run again on
// another instance, as if this one had died). An instance without workers
// has nothing to stop.
func (s *JobStore) Stop(ctx context.Context) error {
	s.mu.Lock()
	started := s.started
	s.started = false
	s.mu.Unlock()
	if !started {
		return nil
	}
	err := s.client.Stop(ctx)
	if err != nil && ctx.Err() != nil {
		// Out of patience: cancel what still runs, and wait for it.
		return s.client.StopAndCancel(context.WithoutCancel(ctx))
	}
	return err
}

// Submit implements executor.JobStore: the job is in the database when
// Submit returns, and runs even if this instance stops at once. ctx may
// end Submit until the job's transaction commits (nothing is kept, and
// the error says so), not while it commits: Submit then waits for the
// commit's answer, up to CommitGrace after ctx ends, and reports the job,
// which runs. A commit that fails (the connection lost on the way), or
// whose answer has not come CommitGrace after ctx ended, gives an error
// that names the job's id, as whether the server kept it cannot be
// known: Status tells.
func (s *JobStore) Submit(ctx context.Context, call tool.Call) (executor.JobID, error) {
	if s.err != nil {
		return "", s.err
	}
	// Ids are 128 random bits: unique across instances and databases.
	id := executor.JobID("job-" + rand.Text())
	args := callArgs{Job: id, Call: call}
	if call.Args != nil {
		args.Args, args.Call.Args = []byte(call.Args), nil
	}
	if b, err := json.Marshal(args.Call); err == nil && !keepsExactly(b, args.Call) {
		var exact bytes.Buffer
		if err := gob.NewEncoder(&exact).Encode(args.Call); err != nil {
			return "", fmt.Errorf("postgres: submit a job of %q: encode the call: %w", call.Name, err)
		}
		args.Exact = exact.Bytes()
		// What listing filters on; the job runs as the exact call.
		args.Call = tool.Call{ID: text(call.ID), Name: text(call.Name), Agent: text(call.Agent),
			Principal: tool.Principal{ID: text(call.Principal.ID), Tenant: text(call.Principal.Tenant)}}
	}
	// A commit that ctx interrupted may have been carried out by the
	// server while its answer was on the way: Submit reported an error
	// for a job that ran. So ctx bounds the work up to the commit, and the
	// commit is waited for.
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return "", fmt.Errorf("postgres: submit a job of %q: %w", call.Name, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // after Commit, nothing
	if _, err := s.client.InsertTx(ctx, tx, args, nil); err != nil {
		return "", fmt.Errorf("postgres: submit a job of %q: %w", call.Name, err)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("postgres: submit a job of %q: %w (the job was not kept)", call.Name, err)
	}
	// The commit's answer is waited for, up to commitGrace after ctx ends.
	commitCtx, endCommit := context.WithCancel(context.WithoutCancel(ctx))
	defer endCommit()
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(s.commitGrace)
		defer t.Stop()
		select {
		case <-t.C:
			endCommit()
		case <-commitCtx.Done(): // Submit returned
		}
	})
	defer stop()
	if err := tx.Commit(commitCtx); err != nil {
		return "", fmt.Errorf("postgres: submit a job of %q: commit: %w: whether job %s was kept is unknown: look it up with Status before submitting it again", call.Name, err, id)
	}
	return id, nil
}

// row finds the River row of a job.
func (s *JobStore) row(ctx context.Context, id executor.JobID) (*rivertype.JobRow, error) {
	if s.err != nil {
		return nil, s.err
	}
	if !storableID(string(id)) {
		return nil, fmt.Errorf("%w %q: no job id holds a NUL or bytes that are not UTF-8", executor.ErrJobNotFound, id)
	}
	res, err := s.client.JobList(ctx, river.NewJobListParams().Kinds(jobKind).
		Where("args->>'toolbelt_job' = @job", river.NamedArgs{"job": string(id)}).First(1))
	if err != nil {
		return nil, fmt.Errorf("postgres: job %s: %w", id, err)
	}
	if len(res.Jobs) == 0 {
		return nil, fmt.Errorf("%w %q: it never existed, or finished more than %v ago (JobsConfig.Retention)", executor.ErrJobNotFound, id, s.cfg.Retention)
	}
	return res.Jobs[0], nil
}

// Status implements executor.JobStore.
func (s *JobStore) Status(ctx context.Context, id executor.JobID) (executor.JobStatus, error) {
	row, err := s.row(ctx, id)
	if err != nil {
		return executor.JobStatus{}, err
	}
	return status(row)
}

// status maps a River row to a job's status.
func status(row *rivertype.JobRow) (executor.JobStatus, error) {
	var a callArgs
	if err := json.Unmarshal(row.EncodedArgs, &a); err != nil {
		return executor.JobStatus{}, fmt.Errorf("postgres: River job %d: its arguments are not a tool call: %w", row.ID, err)
	}
	call, err := a.call()
	if err != nil {
		// Unreadable: the stored id, name and agent, for the status, and
		// no principal (the stored one is text, which is not exact).
		call.Principal = tool.Principal{}
	}
	st := executor.JobStatus{ID: a.Job, CallID: call.ID, Tool: call.Name, Agent: call.Agent,
		Principal: call.Principal.ID, Tenant: call.Principal.Tenant, SubmittedAt: row.CreatedAt}
	if row.AttemptedAt != nil {
		st.StartedAt = *row.AttemptedAt // the latest attempt's start
	}
	switch row.State {
	case rivertype.JobStateRunning:
		st.State = executor.JobRunning
	case rivertype.JobStateCompleted, rivertype.JobStateCancelled, rivertype.JobStateDiscarded:
		st.State = executor.JobDone
		if row.FinalizedAt != nil {
			st.CompletedAt = *row.FinalizedAt
		}
		st.Result = result(row, &call)
	default:
		st.State = executor.JobPending
		st.Reason = "queued: waiting for a worker"
		if n := len(row.Errors); n > 0 {
			st.Reason = fmt.Sprintf("retrying (attempt %d of %d failed: %s)", row.Errors[n-1].Attempt, row.MaxAttempts, row.Errors[n-1].Error)
		}
	}
	return st, nil
}

// result is the result a finished job recorded, or one that says why it
// has none (cancelled before it ran, given up).
func result(row *rivertype.JobRow, call *tool.Call) *tool.Result {
	if out := row.Output(); len(out) > 0 {
		var enc []byte
		if out[0] == '"' && json.Unmarshal(out, &enc) == nil {
			out = enc // kept as base64 (see recordResult)
		}
		var r tool.Result
		if err := json.Unmarshal(out, &r); err == nil {
			return &r
		}
	}
	var te *tool.Error
	switch {
	case row.State == rivertype.JobStateCancelled:
		te = tool.Errorf(tool.CodeCancelled, "the job was cancelled before it finished")
	case len(row.Errors) > 0:
		te = tool.Errorf(tool.CodeInternal, "the job was given up after %d attempts; the last failed: %s", row.Attempt, row.Errors[len(row.Errors)-1].Error)
	default:
		te = tool.Errorf(tool.CodeInternal, "the job finished (%s) without recording a result", row.State)
	}
	return &tool.Result{CallID: call.ID, Tool: call.Name, Status: te.Code.Status(), Error: te, Attempts: row.Attempt}
}

// Wait implements executor.JobStore: it looks at the job every 20 ms at
// first, then less often, up to every 250 ms.
func (s *JobStore) Wait(ctx context.Context, id executor.JobID) (executor.JobStatus, error) {
	every := 20 * time.Millisecond
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return executor.JobStatus{}, ctx.Err()
		case <-t.C:
		}
		st, err := s.Status(ctx, id)
		if err != nil || st.State == executor.JobDone {
			return st, err
		}
		t.Reset(every)
		every = min(2*every, 250*time.Millisecond)
	}
}

// Cancel implements executor.JobStore: from any instance, a job not yet
// running never runs, and a running one has its context cancelled on the
// instance that runs it (its result then says cancelled).
func (s *JobStore) Cancel(ctx context.Context, id executor.JobID) error {
	row, err := s.row(ctx, id)
	if err != nil {
		return err
	}
	if _, err := s.client.JobCancel(ctx, row.ID); err != nil {
		return fmt.Errorf("postgres: cancel job %s: %w", id, err)
	}
	return nil
}

// Jobs implements executor.JobStore: the jobs of every instance, in
// submission order, bounded as the in-memory store's are: the jobs still
// pending or running (the newest MaxJobsListed of them; in memory, all)
// and the last JobsConfig.Listed to finish (in memory, the last
// WithJobRetention keep), finished ones for JobsConfig.Retention.
func (s *JobStore) Jobs(ctx context.Context, f executor.JobFilter) ([]executor.JobStatus, error) {
	if s.err != nil {
		return nil, s.err
	}
	var live, done []rivertype.JobState
	for _, st := range []executor.JobState{executor.JobPending, executor.JobRunning, executor.JobDone} {
		if len(f.States) > 0 && !slices.Contains(f.States, st) {
			continue
		}
		if st == executor.JobDone {
			done = riverStates[st]
		} else {
			live = append(live, riverStates[st]...)
		}
	}
	// executor.JobFilter's rule. The arguments keep names and principals
	// as text (a NUL or invalid UTF-8 made U+FFFD, which text also makes
	// of the filter's values, so that the query can hold them); the exact
	// ones are compared below (Match).
	p := river.NewJobListParams().Kinds(jobKind)
	if f.Tool != "" {
		p = p.Where("args->'call'->>'name' = @tool", river.NamedArgs{"tool": text(f.Tool)})
	}
	if f.Agent != "" {
		p = p.Where("coalesce(args->'call'->>'agent', '') = @agent", river.NamedArgs{"agent": text(f.Agent)})
	}
	if f.For != nil {
		p = p.Where("coalesce(args->'call'->'principal'->>'id', '') = @for_id AND coalesce(args->'call'->'principal'->>'tenant', '') = @for_tenant",
			river.NamedArgs{"for_id": text(f.For.ID), "for_tenant": text(f.For.Tenant)})
	}
	if f.Tenant != "" {
		p = p.Where("coalesce(args->'call'->'principal'->>'tenant', '') = @tenant", river.NamedArgs{"tenant": text(f.Tenant)})
	}
	// The live jobs first: one that finishes between the two queries is
	// then listed twice (kept once, finished), never missed.
	byID := map[int64]*rivertype.JobRow{}
	for _, q := range []struct {
		states []rivertype.JobState
		params *river.JobListParams
	}{
		{live, p.States(live...).OrderBy(river.JobListOrderByID, river.SortOrderDesc).First(MaxJobsListed)},
		{done, p.States(done...).OrderBy(river.JobListOrderByFinalizedAt, river.SortOrderDesc).First(s.cfg.Listed)},
	} {
		if len(q.states) == 0 {
			continue
		}
		res, err := s.client.JobList(ctx, q.params)
		if err != nil {
			return nil, fmt.Errorf("postgres: list jobs: %w", err)
		}
		for _, row := range res.Jobs {
			byID[row.ID] = row
		}
	}
	rows := slices.SortedFunc(maps.Values(byID), func(a, b *rivertype.JobRow) int { return cmp.Compare(a.ID, b.ID) })
	var out []executor.JobStatus
	for _, row := range rows {
		st, err := status(row)
		if err != nil {
			return nil, err
		}
		if f.Match(&st) {
			out = append(out, st)
		}
	}
	return out, nil
}

// riverStates are the River states of each job state.
var riverStates = map[executor.JobState][]rivertype.JobState{
	executor.JobPending: {rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable, rivertype.JobStateScheduled},
	executor.JobRunning: {rivertype.JobStateRunning},
	executor.JobDone:    {rivertype.JobStateCompleted, rivertype.JobStateCancelled, rivertype.JobStateDiscarded},
}

// callWorker runs a job's call through the executor the store serves.
type callWorker struct {
	river.WorkerDefaults[callArgs]
	s *JobStore
}

// errStopped fails an attempt cut short by this instance stopping: River
// runs the job again, as if the instance had died.
var errStopped = errors.New("the instance stopped during the job")

// errStoppedBeforeRun fails an attempt cut short by this instance stopping
// before the tool ran (waiting for an approval, a lock or a slot): the
// next attempt may run any tool, it is the first run.
var errStoppedBeforeRun = errors.New("the instance stopped before the call ran")

// neverRan reports whether every earlier attempt of job stopped before
// its tool ran. An attempt that left no error (its instance died) may have
// run it.
func neverRan(job *river.Job[callArgs]) bool {
	if len(job.Errors) < job.Attempt-1 {
		return false
	}
	for _, e := range job.Errors {
		if e.Error != errStoppedBeforeRun.Error() {
			return false
		}
	}
	return true
}

// Work implements river.Worker.
func (w *callWorker) Work(ctx context.Context, job *river.Job[callArgs]) error {
	call, cerr := job.Args.call()
	run := w.s.run // set by Attach before the workers start
	var res *tool.Result
	switch {
	case cerr != nil:
		// Not run as a call without its principal, which would be someone
		// else (the anonymous caller).
		res = tool.Fail(&call, tool.CodeInternal, fmt.Sprintf("job %s was not run: %v", job.Args.Job, cerr))
	case job.Attempt > 1 && !neverRan(job) && !w.mayRerun(run, call.Name):
		res = tool.Fail(&call, tool.CodeInternal, fmt.Sprintf(
			"job %s: attempt %d of a call to %q, whose earlier attempt may have done its work (its instance stopped mid-run): the tool is not idempotent, so it is not run again; check what happened and submit it again if that is safe",
			job.Args.Job, job.Attempt, call.Name))
	default:
		res = run.Run(ctx, job.Args.Job, call)
	}
	// A call that succeeded is done, even if this instance began to stop
	// as it returned: run again, a tool that is not idempotent would fail
	// saying its work may not have been done.
	if ctx.Err() != nil && res.Status != tool.StatusSucceeded {
		cause := context.Cause(ctx)
		if !errors.Is(cause, river.ErrJobCancelledRemotely) && !errors.Is(cause, context.DeadlineExceeded) {
			if res.Attempts == 0 {
				return errStoppedBeforeRun
			}
			return errStopped
		}
	}
	if err := recordResult(ctx, res); err != nil {
		return fmt.Errorf("record the result: %w", err)
	}
	return nil // a failed call is a result, not a job to retry
}

// maxRecordedResult bounds a job's result as JSON. River records no
// output over 32 MB (and a result it cannot record is lost, its job run
// again); base64 makes this 21.3 MiB.
const maxRecordedResult = 16 << 20

// maxKeptText bounds each text a result too long to record keeps: the
// start of its first text block, its error's message.
const maxKeptText = 64 << 10

// recordResult records res as the job's output, once: River completes a
// job with its output in one batch with the other jobs the instance
// finished, so an output the database refuses fails them all, again and
// again. River keeps it in jsonb, which refuses the escape \u0000 (a tool's
// output may hold NUL bytes) and a lone surrogate's (\ud800, which a tool's
// JSON output may hold and encoding/json reads): such a result is recorded
// as base64, a JSON string. A result over maxRecordedResult is recorded
// without its output (cutResult).
func recordResult(ctx context.Context, res *tool.Result) error {
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	if len(b) > maxRecordedResult {
		if b, err = json.Marshal(cutResult(res, len(b))); err != nil {
			return err
		}
	}
	if !jsonbTakes(b) {
		return river.RecordOutput(ctx, b) // []byte: base64
	}
	return river.RecordOutput(ctx, json.RawMessage(b))
}

// jsonbTakes reports whether jsonb stores the JSON b as it is: it holds no
// escape of a NUL or of a surrogate. jsonb refuses \u0000 and a lone
// surrogate; a pair it takes, but telling them apart is not worth it here
// (such a result is only kept as base64).
func jsonbTakes(b []byte) bool {
	for {
		i := bytes.Index(b, []byte(`\u`))
		if i < 0 || len(b) < i+6 {
			return true
		}
		h := b[i+2 : i+6]
		if string(h) == "0000" || (h[0]|0x20 == 'd' && bytes.IndexByte([]byte("89abAB"), h[1]) >= 0) {
			return false
		}
		b = b[i+2:]
	}
}

// cutResult is res, whose JSON is size bytes, as a job records it when
// that is too long: its status, error (the message cut to maxKeptText) and
// timings, its metadata when short, and in place of its output a text
// that says what was left out and holds the start of its first text
// block. Metadata "truncated" is true, as for a text cut to the output
// cap.
func cutResult(res *tool.Result, size int) *tool.Result {
	kept := *res
	kept.Output, kept.Content = nil, nil
	if m, err := json.Marshal(res.Metadata); err == nil && len(m) <= maxKeptText {
		kept.Metadata = maps.Clone(res.Metadata)
	} else {
		kept.Metadata = nil
	}
	if kept.Metadata == nil {
		kept.Metadata = map[string]any{}
	}
	kept.Metadata["truncated"] = true
	note := fmt.Sprintf("the result was %d bytes as JSON, over the %d bytes a job records: its output was left out", size, maxRecordedResult)
	for _, c := range res.Content {
		if c.Type == tool.ContentText && c.Text != "" {
			note += "; its first text began:\n" + textcut.Clip(c.Text, maxKeptText)
			break
		}
	}
	kept.Content = []tool.Content{{Type: tool.ContentText, Text: note}}
	if res.Error != nil {
		e := *res.Error
		e.Message = textcut.Clip(e.Message, maxKeptText)
		kept.Error = &e
	}
	return &kept
}

func (w *callWorker) mayRerun(run executor.JobRunner, name string) bool {
	e, ok := run.Registry().Lookup(name)
	if !ok {
		// Not known here (a fleet being upgraded): whether it may run
		// again is unknown, and "not found" alone would hide that the
		// earlier attempt may have done its work.
		return false
	}
	s := e.Spec
	if s.Annotations.Idempotent || s.Annotations.ReadOnly {
		return true
	}
	return w.s.cfg.Rerun != nil && w.s.cfg.Rerun(s)
}

var (
	_ rivertype.JobArgs = callArgs{}
	_ executor.JobStore = (*JobStore)(nil)
)
