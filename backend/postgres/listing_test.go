package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// addJobs writes n jobs of the tool report straight into River's table,
// ids job-<first>... in submission order: finished (cancelled) ones with
// finishedAt(i) as their finish time, or, with a nil finishedAt, ones
// waiting for a worker. Thousands of jobs through Submit would take a
// minute.
func addJobs(t *testing.T, dsn string, first, n int, finishedAt func(i int) time.Time) {
	t.Helper()
	state, finished := "available", []time.Time(nil)
	if finishedAt != nil {
		state = "cancelled"
		for i := first; i < first+n; i++ {
			finished = append(finished, finishedAt(i))
		}
	}
	_, err := newPool(t, dsn).Exec(context.Background(), `INSERT INTO river_job (kind, args, state, finalized_at, max_attempts)
		SELECT 'toolbelt_call', jsonb_build_object('toolbelt_job', 'job-' || i, 'call', jsonb_build_object('id', 'c' || i, 'name', 'report')),
			$3::river_job_state, ($4::timestamptz[])[i - $1 + 1], 3
		FROM generate_series($1::int, $1::int + $2::int - 1) AS i ORDER BY i`, first, n, state, finished)
	require.NoError(t, err)
}

func jobIDs(sts []executor.JobStatus) []executor.JobID {
	ids := make([]executor.JobID, len(sts))
	for i, st := range sts {
		ids[i] = st.ID
	}
	return ids
}

func idRange(first, last int) []executor.JobID {
	var ids []executor.JobID
	for i := first; i <= last; i++ {
		ids = append(ids, executor.JobID(fmt.Sprint("job-", i)))
	}
	return ids
}

// Jobs lists what the in-memory store would: the jobs still pending or
// running and the last DefaultJobsListed to finish (the in-memory store
// keeps executor.DefaultJobsKept), in submission order. It listed every
// row of the table: 1,100 finished jobs gave 1,101 entries.
func TestJobsListsTheLastFinishedAsInMemory(t *testing.T) {
	dsn := database(t)
	ctx := within(t, time.Minute)
	a := newJobInstance(t, dsn, postgres.JobsConfig{Workers: postgres.NoWorkers})
	// Job 1 finished last of all (it ran longest); 2..1100 in order.
	start := time.Now().Add(-time.Hour)
	addJobs(t, dsn, 1, 1100, func(i int) time.Time {
		if i == 1 {
			return start.Add(2000 * time.Second)
		}
		return start.Add(time.Duration(i) * time.Second)
	})
	live, err := a.ex.Submit(ctx, tool.Call{ID: "live", Name: "report"})
	require.NoError(t, err)

	all, err := a.ex.JobsContext(ctx, executor.JobFilter{})
	require.NoError(t, err)
	want := append(append(idRange(1, 1), idRange(102, 1100)...), live)
	require.Equal(t, postgres.DefaultJobsListed+1, len(all), "the last %d to finish and the pending one", postgres.DefaultJobsListed)
	if !assert.Equal(t, want, jobIDs(all), "in submission order") {
		return
	}
	assert.Equal(t, executor.JobDone, all[0].State)
	assert.Equal(t, executor.JobPending, all[len(all)-1].State)

	done, err := a.ex.JobsContext(ctx, executor.JobFilter{Tool: "report", States: []executor.JobState{executor.JobDone}})
	require.NoError(t, err)
	assert.True(t, slices.Equal(want[:len(want)-1], jobIDs(done)), "the finished ones listed are the same")
	pending, err := a.ex.JobsContext(ctx, executor.JobFilter{States: []executor.JobState{executor.JobPending, executor.JobRunning}})
	require.NoError(t, err)
	assert.Equal(t, []executor.JobID{live}, jobIDs(pending))
	none, err := a.ex.JobsContext(ctx, executor.JobFilter{Tool: "charge"})
	require.NoError(t, err)
	assert.Empty(t, none)

	old, err := a.ex.StatusContext(ctx, "job-2")
	require.NoError(t, err, "a finished job not listed is still read by id")
	assert.Equal(t, executor.JobDone, old.State)
}

// JobsConfig.Listed sets how many finished jobs are listed, up to
// MaxJobsListed; jobs waiting are listed up to MaxJobsListed, the newest.
func TestJobsListingBounds(t *testing.T) {
	dsn := database(t)
	ctx := within(t, 2*time.Minute)
	start := time.Now().Add(-time.Hour)
	addJobs(t, dsn, 1, postgres.MaxJobsListed+5, func(i int) time.Time { return start.Add(time.Duration(i) * time.Millisecond) })
	first := postgres.MaxJobsListed + 6
	addJobs(t, dsn, first, postgres.MaxJobsListed+5, nil)

	few := newJobInstance(t, dsn, postgres.JobsConfig{Workers: postgres.NoWorkers, Listed: 3})
	sts, err := few.ex.JobsContext(ctx, executor.JobFilter{States: []executor.JobState{executor.JobDone}})
	require.NoError(t, err)
	last := postgres.MaxJobsListed + 5
	assert.True(t, slices.Equal(idRange(last-2, last), jobIDs(sts)), "the last 3 to finish, not %d", len(sts))

	many := newJobInstance(t, dsn, postgres.JobsConfig{Workers: postgres.NoWorkers, Listed: 1 << 30})
	sts, err = many.ex.JobsContext(ctx, executor.JobFilter{})
	require.NoError(t, err)
	require.Equal(t, 2*postgres.MaxJobsListed, len(sts), "at most MaxJobsListed finished and MaxJobsListed waiting")
	assert.Equal(t, executor.JobID(fmt.Sprint("job-", 6)), sts[0].ID, "the newest finished")
	assert.Equal(t, executor.JobID(fmt.Sprint("job-", first+5)), sts[postgres.MaxJobsListed].ID, "the newest waiting")
	assert.Equal(t, executor.JobID(fmt.Sprint("job-", first+postgres.MaxJobsListed+4)), sts[len(sts)-1].ID)
}

// A history query asking for more than MaxHistoryQueryLimit records gets
// the newest MaxHistoryQueryLimit, as the in-memory ring gives at most its
// size: it read the whole table.
func TestHistoryQueryIsBounded(t *testing.T) {
	dsn := database(t)
	ctx := within(t, time.Minute)
	pool := newPool(t, dsn)
	n := postgres.MaxHistoryQueryLimit + 5
	_, err := pool.Exec(ctx, `INSERT INTO toolbelt_history
		(call_id, job_id, tool, agent, session, status, code, message, started_at, duration_ns, attempts)
		SELECT 'c' || i, '', 'report', '', '', 'succeeded', '', '', now(), 0, 1 FROM generate_series(1, $1::int) AS i ORDER BY i`, n)
	require.NoError(t, err)
	stores := postgres.New(pool)
	t.Cleanup(stores.Close)

	recs, err := stores.History.Query(ctx, executor.HistoryQuery{Limit: 1 << 30})
	require.NoError(t, err)
	require.Equal(t, postgres.MaxHistoryQueryLimit, len(recs), "the newest MaxHistoryQueryLimit")
	assert.Equal(t, "c6", recs[0].CallID, "the newest, oldest first")
	assert.Equal(t, fmt.Sprint("c", n), recs[len(recs)-1].CallID)

	recs, err = stores.History.Query(ctx, executor.HistoryQuery{})
	require.NoError(t, err)
	assert.Equal(t, postgres.DefaultHistoryQueryMax, len(recs), "without a limit")
}
