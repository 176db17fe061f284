package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// callArgs is a job: one tool call.
type callArgs struct {
	Call tool.Call `json:"call"`
}

// Kind implements river.JobArgs.
func (callArgs) Kind() string { return "toolbelt_call" }

// JobsConfig configures Jobs.
type JobsConfig struct {
	// Workers is how many jobs this instance runs at once; 0 makes an
	// instance that submits and reads jobs but runs none.
	Workers int
	// Timeout bounds one attempt of a job (default 10 minutes; jobs always
	// have a finite timeout).
	Timeout time.Duration
	// RescueAfter is how long a job may stay running before another
	// instance takes it for dead and runs it again (default Timeout plus a
	// minute).
	RescueAfter time.Duration
	// MaxAttempts bounds the attempts of a job (default 3).
	MaxAttempts int
	// Rerun lets a tool that is not idempotent run again on a later attempt
	// (after its worker died); by default such a job fails instead, because
	// its first attempt may have done its work.
	Rerun func(spec tool.Spec) bool
}

// Jobs runs tool calls as durable jobs on github.com/riverqueue/river: a
// job is in the database when Submit returns, any instance with workers
// runs it through its executor, at least once: if the instance that runs
// it dies, another runs it again after RescueAfter. A tool that is not
// idempotent (Spec.Annotations.Idempotent or ReadOnly) is not silently run
// twice: a later attempt fails with a reason, unless JobsConfig.Rerun says
// it may run again.
type Jobs struct {
	client  *river.Client[pgx.Tx]
	ex      *executor.Executor
	working bool
}

// NewJobs starts a job client over pool; Migrate must have run. ex runs the
// jobs this instance works. Stop it with Stop.
func NewJobs(ctx context.Context, pool *pgxpool.Pool, ex *executor.Executor, cfg JobsConfig) (*Jobs, error) {
	if ex == nil {
		return nil, errors.New("postgres: NewJobs: the executor is nil")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Minute
	}
	if cfg.RescueAfter <= cfg.Timeout {
		cfg.RescueAfter = cfg.Timeout + time.Minute
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	j := &Jobs{ex: ex}
	rc := &river.Config{
		JobTimeout:           cfg.Timeout,
		RescueStuckJobsAfter: cfg.RescueAfter,
		MaxAttempts:          cfg.MaxAttempts,
		FetchPollInterval:    100 * time.Millisecond,
		FetchCooldown:        20 * time.Millisecond,
	}
	if cfg.Workers > 0 {
		workers := river.NewWorkers()
		if err := river.AddWorkerSafely(workers, &callWorker{ex: ex, rerun: cfg.Rerun}); err != nil {
			return nil, fmt.Errorf("postgres: jobs: %w", err)
		}
		rc.Workers = workers
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}}
	}
	client, err := river.NewClient(riverpgxv5.New(pool), rc)
	if err != nil {
		return nil, fmt.Errorf("postgres: jobs: %w", err)
	}
	if cfg.Workers > 0 {
		if err := client.Start(ctx); err != nil {
			return nil, fmt.Errorf("postgres: jobs: start: %w", err)
		}
	}
	j.client, j.working = client, cfg.Workers > 0
	return j, nil
}

// Stop stops this instance's workers, letting running jobs finish until
// ctx ends. An instance without workers has nothing to stop.
func (j *Jobs) Stop(ctx context.Context) error {
	if !j.working {
		return nil
	}
	return j.client.Stop(ctx)
}

// Submit stores call as a job and returns its id. The job is durable when
// Submit returns: it runs even if this instance stops at once.
func (j *Jobs) Submit(ctx context.Context, call tool.Call) (int64, error) {
	res, err := j.client.Insert(ctx, callArgs{Call: call}, nil)
	if err != nil {
		return 0, fmt.Errorf("postgres: submit job: %w", err)
	}
	return res.Job.ID, nil
}

// JobStatus is what Status reports of a job.
type JobStatus struct {
	ID       int64
	State    string // River's state: available, running, completed, retryable, discarded, cancelled, ...
	Attempt  int
	Result   *tool.Result // set once the job has completed
	Errors   []string     // errors of failed attempts
	Finished bool
}

// Status reads a job from any instance.
func (j *Jobs) Status(ctx context.Context, id int64) (JobStatus, error) {
	row, err := j.client.JobGet(ctx, id)
	if err != nil {
		if errors.Is(err, river.ErrNotFound) {
			return JobStatus{}, fmt.Errorf("%w %d", executor.ErrJobNotFound, id)
		}
		return JobStatus{}, fmt.Errorf("postgres: job %d: %w", id, err)
	}
	st := JobStatus{ID: row.ID, State: string(row.State), Attempt: row.Attempt, Finished: row.FinalizedAt != nil}
	for _, e := range row.Errors {
		st.Errors = append(st.Errors, e.Error)
	}
	if out := row.Output(); len(out) > 0 {
		var r tool.Result
		if err := json.Unmarshal(out, &r); err == nil {
			st.Result = &r
		}
	}
	return st, nil
}

// Wait polls until the job is finished, then returns its status.
func (j *Jobs) Wait(ctx context.Context, id int64) (JobStatus, error) {
	for {
		st, err := j.Status(ctx, id)
		if err != nil || st.Finished {
			return st, err
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Cancel cancels a job, from any instance: one not yet running never runs;
// a running one has its context cancelled.
func (j *Jobs) Cancel(ctx context.Context, id int64) error {
	if _, err := j.client.JobCancel(ctx, id); err != nil {
		return fmt.Errorf("postgres: cancel job %d: %w", id, err)
	}
	return nil
}

// callWorker runs a job's call through an executor.
type callWorker struct {
	river.WorkerDefaults[callArgs]
	ex    *executor.Executor
	rerun func(tool.Spec) bool
}

// Work implements river.Worker.
func (w *callWorker) Work(ctx context.Context, job *river.Job[callArgs]) error {
	call := job.Args.Call
	var res *tool.Result
	if job.Attempt > 1 && !w.mayRerun(call.Name) {
		res = tool.Fail(&call, tool.CodeInternal, fmt.Sprintf(
			"job %d: attempt %d of a call to %q, whose earlier attempt may have done its work (its instance stopped mid-run): the tool is not idempotent, so it is not run again; check what happened and submit it again if that is safe",
			job.ID, job.Attempt, call.Name))
	} else {
		res, _ = w.ex.Execute(ctx, call)
	}
	if err := river.RecordOutput(ctx, res); err != nil {
		return fmt.Errorf("record the result: %w", err)
	}
	return nil // a failed call is a result, not a job to retry
}

func (w *callWorker) mayRerun(name string) bool {
	e, ok := w.ex.Registry().Lookup(name)
	if !ok {
		return true // it fails as not found, harmlessly
	}
	s := e.Spec
	if s.Annotations.Idempotent || s.Annotations.ReadOnly {
		return true
	}
	return w.rerun != nil && w.rerun(s)
}

var _ rivertype.JobArgs = callArgs{}
