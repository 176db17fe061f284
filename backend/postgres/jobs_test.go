package postgres_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

const jobsChildEnv = "TOOLBELT_JOBS_CHILD_DSN"

// jobTools are the tools of every job instance: report is read-only (safe
// to run twice), charge is not; hold blocks until its call is cancelled,
// saying on held that it started. In the child, report and charge block
// until killed once they have said they started.
func jobTools(block bool, runs *atomic.Int64, held ...chan<- string) *registry.Registry {
	reg := registry.New()
	run := func(ctx context.Context, name string) (string, error) {
		runs.Add(1)
		if block {
			fmt.Printf("started %s\n", name)
			<-ctx.Done()
			select {} // a worker that hangs: only SIGKILL ends it
		}
		return name + " done", nil
	}
	reg.MustRegister(
		tool.Func("report", "Build a report", func(ctx context.Context, _ struct{}) (string, error) { return run(ctx, "report") }, tool.ReadOnly()),
		tool.Func("charge", "Charge a card", func(ctx context.Context, _ struct{}) (string, error) { return run(ctx, "charge") }, tool.WithRisk(tool.RiskHigh)),
		tool.Func("hold", "Hold until cancelled", func(ctx context.Context, in struct {
			Note string `json:"note"`
		}) (string, error) {
			runs.Add(1)
			for _, h := range held {
				h <- in.Note
			}
			<-ctx.Done()
			return "", ctx.Err()
		}),
	)
	return reg
}

// jobsChild is a worker instance in its own process: it takes jobs and
// hangs in them until the test kills it with SIGKILL.
func jobsChild(dsn string) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		fmt.Println("pool:", err)
		os.Exit(2)
	}
	var runs atomic.Int64
	stores := postgres.New(pool, postgres.WithJobs(postgres.JobsConfig{Workers: 2, Timeout: time.Hour}))
	if _, err := executor.New(jobTools(true, &runs), executor.WithJobStore(stores.Jobs)); err != nil {
		fmt.Println("executor:", err)
		os.Exit(2)
	}
	select {}
}

// jobInstance is one instance of a fleet running jobs: its own pool,
// stores (jobs and history in the database) and executor.
type jobInstance struct {
	stores *postgres.Stores
	ex     *executor.Executor
	runs   atomic.Int64
}

func newJobInstance(t testing.TB, dsn string, cfg postgres.JobsConfig, held ...chan<- string) *jobInstance {
	t.Helper()
	in := &jobInstance{stores: postgres.New(newPool(t, dsn), postgres.WithJobs(cfg))}
	t.Cleanup(in.stores.Close)
	var err error
	in.ex, err = executor.New(jobTools(false, &in.runs, held...),
		executor.WithJobStore(in.stores.Jobs), executor.WithHistoryStore(in.stores.History))
	require.NoError(t, err)
	return in
}

func within(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// A job submitted through one executor's Submit is in the database when
// Submit returns: another executor sees it (Status, Jobs), runs it, and
// both see it done; its history record, written by the instance that ran
// it, is seen from both. A job cancelled before any worker took it never
// runs.
func TestJobSubmittedOnOneExecutorRunsAndShowsOnAnother(t *testing.T) {
	dsn := database(t)
	ctx := within(t, time.Minute)
	a := newJobInstance(t, dsn, postgres.JobsConfig{Workers: postgres.NoWorkers})

	id, err := a.ex.Submit(tool.WithPrincipal(ctx, tool.Principal{ID: "alice"}), tool.Call{ID: "c1", Name: "report", Agent: "ann"})
	require.NoError(t, err)
	assert.Regexp(t, `^job-[A-Z2-7]{26}$`, string(id))
	dropped, err := a.ex.Submit(ctx, tool.Call{ID: "c2", Name: "charge", Agent: "bob"})
	require.NoError(t, err)
	require.NoError(t, a.ex.CancelContext(ctx, dropped), "cancelled before any instance runs it")

	b := newJobInstance(t, dsn, postgres.JobsConfig{Workers: 2})
	st, err := b.ex.StatusContext(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, id, st.ID)
	assert.Equal(t, "c1", st.CallID)
	assert.Equal(t, "report", st.Tool)
	assert.Equal(t, "ann", st.Agent)
	assert.False(t, st.SubmittedAt.IsZero())
	listed, err := b.ex.JobsContext(ctx, executor.JobFilter{})
	require.NoError(t, err)
	require.Len(t, listed, 2)
	assert.Equal(t, []executor.JobID{id, dropped}, []executor.JobID{listed[0].ID, listed[1].ID}, "submission order")
	agentAnn, err := b.ex.JobsContext(ctx, executor.JobFilter{Agent: "ann"})
	require.NoError(t, err)
	require.Len(t, agentAnn, 1)
	assert.Equal(t, id, agentAnn[0].ID)
	charges, err := b.ex.JobsContext(ctx, executor.JobFilter{Tool: "charge", States: []executor.JobState{executor.JobDone}})
	require.NoError(t, err)
	require.Len(t, charges, 1, "the cancelled job is done")
	require.NotNil(t, charges[0].Result)
	assert.Equal(t, tool.StatusCancelled, charges[0].Result.Status)

	res, err := a.ex.Wait(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "report done", res.Text())
	res, err = b.ex.Wait(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "c1", res.CallID)
	st, err = a.ex.StatusContext(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, executor.JobDone, st.State)
	assert.False(t, st.CompletedAt.Before(st.StartedAt))
	pending, err := a.ex.JobsContext(ctx, executor.JobFilter{States: []executor.JobState{executor.JobPending, executor.JobRunning}})
	require.NoError(t, err)
	assert.Empty(t, pending)

	assert.EqualValues(t, 0, a.runs.Load(), "an instance without workers runs nothing")
	assert.EqualValues(t, 1, b.runs.Load(), "the report ran once; the cancelled charge never")
	_, err = b.ex.Wait(ctx, dropped)
	assert.ErrorIs(t, err, tool.ErrCancelled)

	for _, ex := range []*executor.Executor{a.ex, b.ex} {
		recs, err := ex.HistoryContext(ctx, executor.HistoryQuery{Tool: "report"})
		require.NoError(t, err)
		require.Len(t, recs, 1, "the run on b is in the shared history")
		assert.Equal(t, id, recs[0].JobID)
		assert.Equal(t, "c1", recs[0].CallID)
		assert.Equal(t, tool.StatusSucceeded, recs[0].Status)
	}

	for _, ex := range []*executor.Executor{a.ex, b.ex} {
		_, err = ex.StatusContext(ctx, "job-404")
		assert.ErrorIs(t, err, executor.ErrJobNotFound)
		assert.ErrorIs(t, ex.CancelContext(ctx, "job-404"), executor.ErrJobNotFound)
	}
}

// Cancel on one instance stops a job running on another: its backend's
// context is cancelled and the job finishes cancelled, seen from both.
func TestJobCancelledOnOneInstanceStopsItOnAnother(t *testing.T) {
	dsn := database(t)
	ctx := within(t, time.Minute)
	held := make(chan string, 1)
	a := newJobInstance(t, dsn, postgres.JobsConfig{Workers: postgres.NoWorkers})
	b := newJobInstance(t, dsn, postgres.JobsConfig{Workers: 2}, held)
	id, err := a.ex.Submit(ctx, tool.Call{ID: "h", Name: "hold", Args: json.RawMessage(`{"note":"nul\u0000 inside"}`)})
	require.NoError(t, err)
	select {
	case note := <-held:
		assert.Equal(t, "nul\x00 inside", note, "arguments jsonb would refuse travel intact")
	case <-ctx.Done():
		t.Fatal("no instance started the job")
	}
	st, err := a.ex.StatusContext(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, executor.JobRunning, st.State)
	require.NoError(t, a.ex.CancelContext(ctx, id))
	res, err := a.ex.Wait(ctx, id)
	assert.ErrorIs(t, err, tool.ErrCancelled)
	require.NotNil(t, res)
	assert.Equal(t, tool.StatusCancelled, res.Status)
	st, err = b.ex.StatusContext(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, executor.JobDone, st.State)
	require.NoError(t, a.ex.CancelContext(ctx, id), "cancelling a finished job does nothing")
}

// The context forms give up when their context ends, and leave the job
// alone; Submit with a done context stores nothing.
func TestJobStoreContextFormsHonourCancellation(t *testing.T) {
	dsn := database(t)
	ctx := within(t, time.Minute)
	a := newJobInstance(t, dsn, postgres.JobsConfig{Workers: postgres.NoWorkers})
	id, err := a.ex.Submit(ctx, tool.Call{ID: "c", Name: "report"})
	require.NoError(t, err)

	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err = a.ex.StatusContext(done, id)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, a.ex.CancelContext(done, id), context.Canceled)
	_, err = a.ex.JobsContext(done, executor.JobFilter{})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = a.ex.HistoryContext(done, executor.HistoryQuery{})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = a.ex.Submit(done, tool.Call{ID: "late", Name: "report"})
	assert.ErrorIs(t, err, tool.ErrCancelled)
	short, stop := context.WithTimeout(ctx, 100*time.Millisecond)
	defer stop()
	res, err := a.ex.Wait(short, id)
	assert.Nil(t, res)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "nobody runs the job: Wait gives up at its deadline")

	st, err := a.ex.StatusContext(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, executor.JobPending, st.State, "the job is untouched")
	all, err := a.ex.JobsContext(ctx, executor.JobFilter{})
	require.NoError(t, err)
	assert.Len(t, all, 1, "the late submission was not stored")
}

// A store serves one executor: a second executor refuses it.
func TestJobStoreAttachesOnce(t *testing.T) {
	stores := postgres.New(newPool(t, database(t)), postgres.WithJobs(postgres.JobsConfig{Workers: postgres.NoWorkers}))
	t.Cleanup(stores.Close)
	var runs atomic.Int64
	_, err := executor.New(jobTools(false, &runs), executor.WithJobStore(stores.Jobs))
	require.NoError(t, err)
	_, err = executor.New(jobTools(false, &runs), executor.WithJobStore(stores.Jobs))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already attached to an executor")
}

// A worker killed with SIGKILL mid-job: another instance runs the job
// again (at least once). A read-only tool completes; a tool that is not
// idempotent is not silently run twice: its job fails with the reason.
func TestJobsSurviveAWorkerKilledMidJob(t *testing.T) {
	dsn := database(t)
	ctx := within(t, 3*time.Minute)
	submitter := newJobInstance(t, dsn, postgres.JobsConfig{Workers: postgres.NoWorkers})
	reportID, err := submitter.ex.Submit(ctx, tool.Call{ID: "r", Name: "report"})
	require.NoError(t, err)
	chargeID, err := submitter.ex.Submit(ctx, tool.Call{ID: "c", Name: "charge"})
	require.NoError(t, err)

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), jobsChildEnv+"="+dsn)
	out, err := child.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, child.Start())
	started := 0
	sc := bufio.NewScanner(out)
	for started < 2 && sc.Scan() {
		if strings.HasPrefix(sc.Text(), "started ") {
			started++
		}
	}
	require.Equal(t, 2, started, "the child took both jobs")
	require.NoError(t, syscall.Kill(child.Process.Pid, syscall.SIGKILL))
	_ = child.Wait()
	assert.ErrorIs(t, syscall.Kill(child.Process.Pid, 0), syscall.ESRCH, "the worker is gone")
	st, err := submitter.ex.StatusContext(ctx, reportID)
	require.NoError(t, err)
	assert.Equal(t, executor.JobRunning, st.State, "the dead worker still holds it")

	// Another instance rescues what the dead one held.
	worker := newJobInstance(t, dsn, postgres.JobsConfig{Workers: 2, Timeout: 500 * time.Millisecond, RescueAfter: time.Second})
	res, err := submitter.ex.Wait(ctx, reportID)
	require.NoError(t, err, "the read-only job ran again and completed")
	assert.Equal(t, "report done", res.Text())

	res, err = submitter.ex.Wait(ctx, chargeID)
	require.Error(t, err, "the charge is not run twice")
	assert.Contains(t, res.Error.Message, "not idempotent, so it is not run again")
	assert.EqualValues(t, 1, worker.runs.Load(), "only the report ran again")
}

// An instance stopped with a deadline cancels the jobs it still runs: they
// are not done, but run again on another instance (a tool that is not
// idempotent then fails with the reason, as after a crash).
func TestJobOfAStoppedInstanceRunsAgainElsewhere(t *testing.T) {
	dsn := database(t)
	ctx := within(t, 2*time.Minute)
	held := make(chan string, 2)
	a := newJobInstance(t, dsn, postgres.JobsConfig{Workers: postgres.NoWorkers})
	b := newJobInstance(t, dsn, postgres.JobsConfig{Workers: 1}, held)
	id, err := a.ex.Submit(ctx, tool.Call{ID: "h", Name: "hold", Args: json.RawMessage(`{"note":"first"}`)})
	require.NoError(t, err)
	<-held
	stopCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	require.NoError(t, b.stores.Jobs.Stop(stopCtx))
	st, err := a.ex.StatusContext(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, executor.JobPending, st.State, "not done: it runs again")
	assert.Contains(t, st.Reason, "the instance stopped during the job")

	c := newJobInstance(t, dsn, postgres.JobsConfig{Workers: 1}, held)
	res, err := a.ex.Wait(ctx, id)
	require.Error(t, err)
	assert.Contains(t, res.Error.Message, "not idempotent, so it is not run again")
	assert.EqualValues(t, 0, c.runs.Load())
}
