package executor_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

func scState(t *testing.T, ex *executor.Executor, id executor.JobID, want executor.JobState) executor.JobStatus {
	t.Helper()
	var st executor.JobStatus
	require.Eventually(t, func() bool {
		var err error
		st, err = ex.Status(id)
		return err == nil && st.State == want
	}, 5*time.Second, time.Millisecond, "job %s never reached %s (last %+v)", id, want, st)
	return st
}

func TestJobLifecycle(t *testing.T) {
	probe, release := &scProbe{}, make(chan struct{})
	ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release, scPathResource(tool.Write))))
	first, err := ex.Submit(context.Background(), tool.Call{ID: "c1", Name: "gate", Agent: "ann", Args: []byte(`{"path":"f"}`)})
	require.NoError(t, err)
	second, err := ex.Submit(context.Background(), tool.Call{ID: "c2", Name: "gate", Agent: "bob", Args: []byte(`{"path":"f"}`)})
	require.NoError(t, err)
	assert.NotEqual(t, first, second)

	st := scState(t, ex, first, executor.JobRunning)
	assert.Equal(t, "c1", st.CallID)
	assert.False(t, st.StartedAt.IsZero())
	assert.True(t, st.CompletedAt.IsZero())
	assert.Nil(t, st.Result)

	st2 := scState(t, ex, second, executor.JobPending)
	require.Eventually(t, func() bool { st2, _ = ex.Status(second); return st2.Reason != "" }, 5*time.Second, time.Millisecond)
	assert.Contains(t, st2.Reason, `lock: waiting to write "file:f" behind call "c1"`)

	running := ex.Jobs(executor.JobFilter{States: []executor.JobState{executor.JobRunning}})
	require.Len(t, running, 1)
	assert.Equal(t, first, running[0].ID)
	assert.Len(t, ex.Jobs(executor.JobFilter{Agent: "bob"}), 1)
	all := ex.Jobs(executor.JobFilter{})
	require.Len(t, all, 2)
	assert.Equal(t, []executor.JobID{first, second}, []executor.JobID{all[0].ID, all[1].ID}, "submission order")

	close(release)
	res, err := ex.Wait(context.Background(), first)
	require.NoError(t, err)
	assert.True(t, res.OK())
	res, err = ex.Wait(context.Background(), second)
	require.NoError(t, err)
	assert.Equal(t, "c2", res.CallID)
	st = scState(t, ex, second, executor.JobDone)
	assert.False(t, st.CompletedAt.Before(st.StartedAt), "completed-at after started-at")
	assert.Same(t, res, st.Result)
	assert.NoError(t, ex.Cancel(second), "cancelling a finished job does nothing")
}

func TestJobCancelStopsRunningBackend(t *testing.T) {
	defer scLeakCheck(t)()
	pids := make(chan int, 8)
	ex := executor.MustNew(scRegistry(t, scProcTool("sh", pids)))
	id, err := ex.Submit(context.Background(), scCall("c", "sh", map[string]string{"script": `sleep 30 & echo "pid $!"; wait`}))
	require.NoError(t, err)
	var all []int
	for len(all) < 2 {
		select {
		case p := <-pids:
			all = append(all, p)
		case <-time.After(10 * time.Second):
			t.Fatal("process did not start")
		}
	}
	scState(t, ex, id, executor.JobRunning)
	require.NoError(t, ex.Cancel(id))
	res, err := ex.Wait(context.Background(), id)
	assert.True(t, errors.Is(err, tool.ErrCancelled), "%v", err)
	assert.Equal(t, tool.StatusCancelled, res.Status)
	for _, pid := range all {
		// Polled: the tree's processes are not this process's children, and
		// nothing signals their end here.
		assert.Eventually(t, func() bool { return !scAlive(pid) }, 5*time.Second, 10*time.Millisecond, "pid %d is gone", pid)
	}
}

// TestJobCancelledAwaitingApprovalNeverRuns: a job waiting for a human is
// cancelled; its backend never runs.
func TestJobCancelledAwaitingApprovalNeverRuns(t *testing.T) {
	probe := &scProbe{}
	appr := &scApproval{tools: map[string]bool{"gate": true}, decide: make(chan bool)}
	released := make(chan struct{})
	close(released)
	ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, released)), executor.WithExtensions(appr.ext()))
	events, stop := ex.Subscribe(executor.EventFilter{})
	defer stop()
	id, err := ex.Submit(context.Background(), tool.Call{ID: "risky", Name: "gate", Args: []byte(`{}`)})
	require.NoError(t, err)
	st := scState(t, ex, id, executor.JobAwaitingApproval)
	assert.Equal(t, "test asks", st.Reason)
	require.NoError(t, ex.Cancel(id))
	res, _ := ex.Wait(context.Background(), id)
	assert.Equal(t, tool.StatusCancelled, res.Status)
	assert.Zero(t, probe.calls.Load(), "the backend never ran")
	evs := scCollect(events, func(ev tool.Event) bool { return ev.Kind == tool.EventCancelled }, 5*time.Second)
	var kinds []tool.EventKind
	for _, ev := range evs {
		kinds = append(kinds, ev.Kind)
		assert.Equal(t, string(id), ev.JobID)
	}
	assert.Equal(t, []tool.EventKind{tool.EventSubmitted, tool.EventApprovalRequested, tool.EventCancelled}, kinds)

	// The same approval, given, lets the next job run.
	id2, err := ex.Submit(context.Background(), tool.Call{ID: "ok", Name: "gate", Args: []byte(`{}`)})
	require.NoError(t, err)
	scState(t, ex, id2, executor.JobAwaitingApproval)
	appr.decide <- true
	res, err = ex.Wait(context.Background(), id2)
	require.NoError(t, err)
	assert.True(t, res.OK())
	assert.Equal(t, int64(1), probe.calls.Load())
}

func TestJobRetention(t *testing.T) {
	ex := executor.MustNew(scRegistry(t, scNoop()), executor.WithJobRetention(time.Hour, 3))
	var ids []executor.JobID
	for i := 0; i < 5; i++ {
		id, err := ex.Submit(context.Background(), tool.Call{ID: fmt.Sprint(i), Name: "noop"})
		require.NoError(t, err)
		_, err = ex.Wait(context.Background(), id)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	kept := ex.Jobs(executor.JobFilter{})
	require.Len(t, kept, 3, "only the last 3 finished jobs are kept")
	assert.Equal(t, ids[2:], []executor.JobID{kept[0].ID, kept[1].ID, kept[2].ID})
	_, err := ex.Status(ids[0])
	assert.ErrorIs(t, err, executor.ErrJobNotFound)
	assert.Contains(t, err.Error(), string(ids[0]))

	// In a synctest bubble the clock moves only by the test's sleeps: the
	// job is kept for exactly its 20 ms.
	synctest.Test(t, func(t *testing.T) {
		short := executor.MustNew(scRegistry(t, scNoop()), executor.WithJobRetention(20*time.Millisecond, 100))
		id, err := short.Submit(context.Background(), tool.Call{Name: "noop"})
		require.NoError(t, err)
		_, err = short.Wait(context.Background(), id)
		require.NoError(t, err)
		time.Sleep(20*time.Millisecond - time.Nanosecond)
		_, err = short.Status(id)
		require.NoError(t, err, "kept until its retention is up")
		time.Sleep(time.Nanosecond)
		_, err = short.Status(id)
		assert.ErrorIs(t, err, executor.ErrJobNotFound, "dropped once its time is up")
	})
}

func TestJobErrors(t *testing.T) {
	ex := executor.MustNew(scRegistry(t, scNoop()))
	_, err := ex.Status("job-404")
	assert.ErrorIs(t, err, executor.ErrJobNotFound)
	assert.ErrorIs(t, ex.Cancel("job-404"), executor.ErrJobNotFound)
	_, err = ex.Wait(context.Background(), "job-404")
	assert.ErrorIs(t, err, executor.ErrJobNotFound)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = ex.Submit(ctx, tool.Call{Name: "noop"})
	assert.ErrorIs(t, err, tool.ErrCancelled)

	// A job outlives the context that submitted it; Wait's own context
	// only bounds the wait.
	probe, release := &scProbe{}, make(chan struct{})
	ex2 := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release)))
	sctx, scancel := context.WithCancel(context.Background())
	id, err := ex2.Submit(sctx, tool.Call{Name: "gate"})
	require.NoError(t, err)
	scancel()
	wctx, wcancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer wcancel()
	res, err := ex2.Wait(wctx, id)
	assert.Nil(t, res)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	close(release)
	res, err = ex2.Wait(context.Background(), id)
	require.NoError(t, err)
	assert.True(t, res.OK())

	// An unknown tool is a finished job with the not-found result.
	id, err = ex.Submit(context.Background(), tool.Call{Name: "nope"})
	require.NoError(t, err)
	_, err = ex.Wait(context.Background(), id)
	assert.ErrorIs(t, err, tool.ErrNotFound)
}

// Job ids are unique across executors (instances sharing a dashboard or a
// log must never mix two jobs up); they were "job-1" in every process.
func TestJobIDsAreGloballyUnique(t *testing.T) {
	seen := map[executor.JobID]bool{}
	for range 3 {
		ex := executor.MustNew(scRegistry(t, tool.Func("noop", "Does nothing", func(context.Context, struct{}) (string, error) { return "", nil })))
		for range 5 {
			id, err := ex.Submit(context.Background(), tool.Call{Name: "noop"})
			require.NoError(t, err)
			require.False(t, seen[id], "id %s given twice", id)
			seen[id] = true
			_, _ = ex.Wait(context.Background(), id)
		}
	}
}

// The context forms of Status, Cancel and Jobs (and Wait) give up when
// their context is done, and leave the job alone.
func TestJobContextFormsHonourCancellation(t *testing.T) {
	probe, release := &scProbe{}, make(chan struct{})
	ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release)))
	id, err := ex.Submit(context.Background(), tool.Call{ID: "c", Name: "gate"})
	require.NoError(t, err)
	scState(t, ex, id, executor.JobRunning)

	done, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = ex.StatusContext(done, id)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, ex.CancelContext(done, id), context.Canceled)
	_, err = ex.JobsContext(done, executor.JobFilter{})
	assert.ErrorIs(t, err, context.Canceled)
	res, err := ex.Wait(done, id)
	assert.Nil(t, res)
	assert.ErrorIs(t, err, context.Canceled)

	st, err := ex.StatusContext(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, executor.JobRunning, st.State, "a done context cancels nothing")
	all, err := ex.JobsContext(context.Background(), executor.JobFilter{Tool: "gate"})
	require.NoError(t, err)
	require.Len(t, all, 1)
	assert.Equal(t, id, all[0].ID)
	close(release)
	res, err = ex.Wait(context.Background(), id)
	require.NoError(t, err)
	assert.True(t, res.OK())
}

// handStore is a JobStore of the test's own: it keeps jobs in a map and
// runs each through the attached JobRunner, as a shared store's worker
// does.
type handStore struct {
	mu       sync.Mutex
	run      executor.JobRunner
	attached int
	jobs     map[executor.JobID]*executor.JobStatus
	done     map[executor.JobID]chan struct{}
}

func (s *handStore) Attach(run executor.JobRunner) error {
	s.attached++
	s.run = run
	return nil
}

func (s *handStore) Submit(ctx context.Context, call tool.Call) (executor.JobID, error) {
	s.mu.Lock()
	id := executor.JobID(fmt.Sprintf("hand-%d", len(s.jobs)+1))
	s.jobs[id] = &executor.JobStatus{ID: id, CallID: call.ID, Tool: call.Name, State: executor.JobPending}
	s.done[id] = make(chan struct{})
	s.mu.Unlock()
	go func() {
		res := s.run.Run(context.Background(), id, call)
		s.mu.Lock()
		s.jobs[id].State, s.jobs[id].Result = executor.JobDone, res
		s.mu.Unlock()
		close(s.done[id])
	}()
	return id, nil
}

func (s *handStore) Status(_ context.Context, id executor.JobID) (executor.JobStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.jobs[id]; st != nil {
		return *st, nil
	}
	return executor.JobStatus{}, executor.ErrJobNotFound
}

func (s *handStore) Wait(ctx context.Context, id executor.JobID) (executor.JobStatus, error) {
	s.mu.Lock()
	done := s.done[id]
	s.mu.Unlock()
	<-done
	return s.Status(ctx, id)
}

func (s *handStore) Cancel(context.Context, executor.JobID) error { return nil }

func (s *handStore) Jobs(context.Context, executor.JobFilter) ([]executor.JobStatus, error) {
	return nil, nil
}

// With WithJobStore, Submit, Status and Wait go through the store, which
// New attached once, and a job the store runs through its JobRunner is a
// call of the executor: its events and history record carry the job id.
func TestJobStoreRunsJobsThroughTheRunner(t *testing.T) {
	store := &handStore{jobs: map[executor.JobID]*executor.JobStatus{}, done: map[executor.JobID]chan struct{}{}}
	ex := executor.MustNew(scRegistry(t, scNoop()), executor.WithJobStore(store))
	assert.Equal(t, 1, store.attached)
	events, stop := ex.Subscribe(executor.EventFilter{})
	defer stop()
	id, err := ex.Submit(context.Background(), tool.Call{ID: "c", Name: "noop"})
	require.NoError(t, err)
	assert.Equal(t, executor.JobID("hand-1"), id, "the store gives the id")
	res, err := ex.Wait(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, "c", res.CallID)
	st, err := ex.Status(id)
	require.NoError(t, err)
	assert.Equal(t, executor.JobDone, st.State)
	evs := scCollect(events, func(ev tool.Event) bool { return ev.Kind == tool.EventCompleted }, 5*time.Second)
	require.NotEmpty(t, evs)
	for _, ev := range evs {
		assert.Equal(t, "hand-1", ev.JobID)
	}
	h := ex.History(executor.HistoryQuery{})
	require.Len(t, h, 1)
	assert.Equal(t, id, h[0].JobID)

	var nilStore *handStore
	_, err = executor.New(scRegistry(t, scNoop()), executor.WithJobStore(nilStore))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "WithJobStore is a nil pointer")
}

// The zero JobRunner belongs to no executor: it fails a call, never
// panics.
func TestZeroJobRunnerFailsTheCall(t *testing.T) {
	var r executor.JobRunner
	res := r.Run(context.Background(), "job-x", tool.Call{ID: "c", Name: "noop"})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeInternal, res.Error.Code)
	assert.Contains(t, res.Error.Message, "zero value")
	assert.Nil(t, r.Registry())
}
