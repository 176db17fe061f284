package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Three instances with three workers each race for 60 jobs of a tool that
// is not idempotent: each job runs once, on one of them, never twice.
func TestAttackS28TwoWorkersNeverRunOneJob(t *testing.T) {
	dsn := database(t)
	ctx := within(t, 2*time.Minute)
	var mu sync.Mutex
	ran := map[string]int{}
	reg := registry.New()
	reg.MustRegister(tool.Func("charge", "Charge a card", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		mu.Lock()
		ran[fmt.Sprint(in.N)]++
		mu.Unlock()
		return "charged", nil
	}, tool.WithRisk(tool.RiskHigh)))
	var workers []*executor.Executor
	for range 3 {
		s := postgres.New(newPool(t, dsn), postgres.WithJobs(postgres.JobsConfig{Workers: 3}))
		t.Cleanup(s.Close)
		ex, err := executor.New(reg, executor.WithJobStore(s.Jobs))
		require.NoError(t, err)
		workers = append(workers, ex)
	}
	var ids []executor.JobID
	for n := range 60 {
		id, err := workers[n%3].Submit(ctx, tool.Call{ID: fmt.Sprint("c", n), Name: "charge", Args: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	for i, id := range ids {
		res, err := workers[(i+1)%3].Wait(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, tool.StatusSucceeded, res.Status)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, ran, 60)
	for n, k := range ran {
		assert.Equal(t, 1, k, "job %s ran %d times", n, k)
	}
}

// Jobs cancelled while they wait for a worker (the instance's one worker
// is busy) never run, and say they were cancelled; the job that held the
// worker, cancelled as it runs, stops.
func TestAttackS28ACancelledJobNeverRuns(t *testing.T) {
	dsn := database(t)
	ctx := within(t, 2*time.Minute)
	held := make(chan string, 1)
	in := newJobInstance(t, dsn, postgres.JobsConfig{Workers: 1}, held)
	hold, err := in.ex.Submit(ctx, tool.Call{ID: "h", Name: "hold", Args: json.RawMessage(`{"note":"busy"}`)})
	require.NoError(t, err)
	select {
	case <-held:
	case <-ctx.Done():
		t.Fatal("the worker never took the holding job")
	}
	var queued []executor.JobID
	for n := range 5 {
		id, err := in.ex.Submit(ctx, tool.Call{ID: fmt.Sprint("q", n), Name: "charge", Args: json.RawMessage(`{}`)})
		require.NoError(t, err)
		queued = append(queued, id)
	}
	for _, id := range queued {
		require.NoError(t, in.ex.CancelContext(ctx, id))
	}
	require.NoError(t, in.ex.CancelContext(ctx, hold))
	res, err := in.ex.Wait(ctx, hold)
	require.Error(t, err)
	assert.Equal(t, tool.StatusCancelled, res.Status)
	for _, id := range queued {
		res, err := in.ex.Wait(ctx, id)
		require.Error(t, err, "job %s", id)
		assert.Equal(t, tool.CodeCancelled, res.Error.Code, "job %s", id)
	}
	assert.EqualValues(t, 1, in.runs.Load(), "a cancelled job ran (only the holding job may have)")
}

// Jobs cancelled the moment they are submitted, with workers free to take
// them: whichever wins, a job's result says what happened. A charge that
// ran says so (succeeded); one that says cancelled never charged.
func TestAttackS28ACancelRacingTheWorkersSaysWhatRan(t *testing.T) {
	dsn := database(t)
	ctx := within(t, 2*time.Minute)
	in := newJobInstance(t, dsn, postgres.JobsConfig{Workers: 3})
	var ids []executor.JobID
	for n := range 30 {
		id, err := in.ex.Submit(ctx, tool.Call{ID: fmt.Sprint("r", n), Name: "charge", Args: json.RawMessage(`{}`)})
		require.NoError(t, err)
		require.NoError(t, in.ex.CancelContext(ctx, id))
		ids = append(ids, id)
	}
	var succeeded int64
	for _, id := range ids {
		res, _ := in.ex.Wait(ctx, id)
		require.NotNil(t, res, "job %s", id)
		switch res.Status {
		case tool.StatusSucceeded:
			succeeded++
		case tool.StatusCancelled:
		default:
			t.Errorf("job %s ended %s: %+v", id, res.Status, res.Error)
		}
	}
	t.Logf("%d of 30 ran before their cancellation reached them", succeeded)
	assert.Equal(t, succeeded, in.runs.Load(), "charges run against results that say they ran")
}
