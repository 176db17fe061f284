package postgres_test

import (
	"bufio"
	"context"
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
// to run twice), charge is not. In the child, both block until killed once
// they have said they started.
func jobTools(block bool, runs *atomic.Int64) *registry.Registry {
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
	if _, err := postgres.NewJobs(ctx, pool, executor.MustNew(jobTools(true, &runs)), postgres.JobsConfig{Workers: 2, Timeout: time.Hour}); err != nil {
		fmt.Println("jobs:", err)
		os.Exit(2)
	}
	select {}
}

// A job is durable when Submit returns and any instance runs it; Cancel
// from any instance stops one that has not run.
func TestJobsRunOnAnotherInstance(t *testing.T) {
	dsn := database(t)
	ctx := context.Background()
	var runs atomic.Int64
	submitter, err := postgres.NewJobs(ctx, newPool(t, dsn), executor.MustNew(jobTools(false, &runs)), postgres.JobsConfig{})
	require.NoError(t, err)
	id, err := submitter.Submit(ctx, tool.Call{ID: "c1", Name: "report"})
	require.NoError(t, err)
	st, err := submitter.Status(ctx, id)
	require.NoError(t, err)
	assert.False(t, st.Finished, "nobody works jobs yet")

	worker, err := postgres.NewJobs(ctx, newPool(t, dsn), executor.MustNew(jobTools(false, &runs)), postgres.JobsConfig{Workers: 2})
	require.NoError(t, err)
	t.Cleanup(func() { _ = worker.Stop(context.Background()) })
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err = submitter.Wait(wctx, id)
	require.NoError(t, err)
	require.NotNil(t, st.Result)
	assert.True(t, st.Result.OK(), "%v", st.Result.Error)
	assert.Equal(t, "report done", st.Result.Text())
	assert.EqualValues(t, 1, runs.Load())

	_, err = submitter.Status(ctx, 999999)
	assert.ErrorIs(t, err, executor.ErrJobNotFound)
}

// A worker killed with SIGKILL mid-job: another instance runs the job
// again (at least once). A read-only tool completes; a tool that is not
// idempotent is not silently run twice: its job fails with the reason.
func TestJobsSurviveAWorkerKilledMidJob(t *testing.T) {
	dsn := database(t)
	ctx := context.Background()
	var runs atomic.Int64
	submitter, err := postgres.NewJobs(ctx, newPool(t, dsn), executor.MustNew(jobTools(false, &runs)), postgres.JobsConfig{})
	require.NoError(t, err)
	reportID, err := submitter.Submit(ctx, tool.Call{ID: "r", Name: "report"})
	require.NoError(t, err)
	chargeID, err := submitter.Submit(ctx, tool.Call{ID: "c", Name: "charge"})
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

	// Another instance rescues what the dead one held.
	worker, err := postgres.NewJobs(ctx, newPool(t, dsn), executor.MustNew(jobTools(false, &runs)),
		postgres.JobsConfig{Workers: 2, Timeout: 500 * time.Millisecond, RescueAfter: time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = worker.Stop(context.Background()) })
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	st, err := submitter.Wait(wctx, reportID)
	require.NoError(t, err)
	require.NotNil(t, st.Result)
	assert.True(t, st.Result.OK(), "the read-only job ran again and completed: %v", st.Result.Error)
	assert.Equal(t, 2, st.Attempt)

	st, err = submitter.Wait(wctx, chargeID)
	require.NoError(t, err)
	require.NotNil(t, st.Result)
	require.NotNil(t, st.Result.Error, "the charge is not run twice")
	assert.Contains(t, st.Result.Error.Message, "not idempotent, so it is not run again")
	assert.EqualValues(t, 1, runs.Load(), "only the report ran in this process")
}
