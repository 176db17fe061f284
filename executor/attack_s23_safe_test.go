package executor_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Areas attacked in session 23 and found to hold; each test fails if its
// protection goes.

// WithMaxQueue holds under a rush: twenty calls arriving at once behind a
// held slot, with room for two in the queue, leave exactly two waiting and
// refuse the other eighteen at once (the count is taken and checked in one
// atomic step: no two callers can both see room for one).
func TestAttackS23QueueBoundHoldsUnderARush(t *testing.T) {
	probe, release := &scProbe{}, make(chan struct{})
	ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release)),
		executor.WithMaxConcurrency(1), executor.WithMaxQueue(2))
	held := scHold(t, ex, probe, "holder", "")
	const rush = 20
	results := make(chan *tool.Result, rush)
	var wg sync.WaitGroup
	for i := range rush {
		wg.Go(func() {
			r, _ := ex.Execute(context.Background(), scCall(fmt.Sprint("r", i), "gate", scPathArgs{}))
			results <- r
		})
	}
	refused := 0
	for refused < rush-2 { // the refused come back while the holder still runs
		select {
		case r := <-results:
			require.True(t, errors.Is(r.Err(), tool.ErrConcurrencyLimit), "%v", r.Err())
			assert.Contains(t, r.Error.Message, "the most allowed")
			refused++
		case <-time.After(10 * time.Second):
			close(release)
			t.Fatalf("only %d of %d calls refused: the others queued past the bound", refused, rush-2)
		}
	}
	close(release)
	wg.Wait()
	close(results)
	for r := range results {
		assert.True(t, r.OK(), "the two queued ran: %v", r.Err())
	}
	require.True(t, (<-held).OK())
	assert.Equal(t, int64(1+2), probe.calls.Load(), "the holder and the two queued ran; nothing else")
}

// Subscribers that come and go while calls publish: a stop closes its
// channel under the hub's lock, so no event is ever sent on a closed
// channel (a panic), and a subscriber that never reads blocks nobody.
func TestAttackS23SubscribersComeAndGoWhileCallsPublish(t *testing.T) {
	defer scLeakCheck(t)()
	ex := executor.MustNew(scRegistry(t, scNoop()))
	_, never := ex.Subscribe(executor.EventFilter{Buffer: 1}) // never read
	defer never()
	stopCalls := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stopCalls:
					return
				default:
				}
				_, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "noop"})
				assert.NoError(t, err)
			}
		})
	}
	for i := range 500 {
		ch, stop := ex.Subscribe(executor.EventFilter{Buffer: 1 + i%3})
		if i%2 == 0 {
			<-ch // one event at least: the calls are publishing
		}
		stop()
		stop() // twice is allowed
		// Closed: ranging drains what was buffered, then ends.
		for range ch {
		}
	}
	close(stopCalls)
	wg.Wait()
}

// Agent limiters are made for the agent names calls bring (the model's
// or a client's choice) and dropped when no call of the agent runs or
// waits: a thousand names leave none behind.
func TestAttackS23ManyAgentNamesLeaveNoLimiters(t *testing.T) {
	ex := executor.MustNew(scRegistry(t, scNoop()), executor.WithAgentConcurrency(1), executor.WithToolConcurrency(1))
	for i := range 1000 {
		_, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "noop", Agent: fmt.Sprint("agent-", i),
			Principal: tool.Principal{ID: "p", Tenant: fmt.Sprint("t", i%7)}})
		require.NoError(t, err)
	}
	alive, busy := executor.AgentLimiters(ex)
	assert.Zero(t, alive)
	assert.Zero(t, busy)
	assert.Zero(t, executor.Limiters(ex)["tool"])
}

// A job cancelled while it waits for its lock never runs its backend, and
// a finished job that retention dropped is ErrJobNotFound to Wait, Status
// and Cancel, never a hang.
func TestAttackS23JobCancelledBehindALockNeverRunsAndPrunedIsNotFound(t *testing.T) {
	probe, release := &scProbe{}, make(chan struct{})
	ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release, scPathResource(tool.Write))),
		executor.WithJobRetention(time.Hour, 1))
	held := scHold(t, ex, probe, "holder", "f")
	id, err := ex.Submit(context.Background(), scCall("waiter", "gate", scPathArgs{Path: "f"}))
	require.NoError(t, err)
	require.Eventually(t, func() bool { st, _ := ex.Status(id); return st.Reason != "" }, 5*time.Second, time.Millisecond)
	require.NoError(t, ex.Cancel(id))
	res, err := ex.Wait(context.Background(), id)
	require.ErrorIs(t, err, tool.ErrCancelled)
	assert.Equal(t, tool.StatusCancelled, res.Status)
	close(release)
	require.True(t, (<-held).OK())
	assert.Equal(t, int64(1), probe.calls.Load(), "the cancelled job's backend ran")
	require.NoError(t, ex.Cancel(id), "cancelling a finished job does nothing")

	// One finished job is kept: the next one to finish drops this one.
	other, err := ex.Submit(context.Background(), scCall("other", "gate", scPathArgs{}))
	require.NoError(t, err)
	_, err = ex.Wait(context.Background(), other)
	require.NoError(t, err)
	_, err = ex.Wait(context.Background(), id)
	require.ErrorIs(t, err, executor.ErrJobNotFound)
	_, err = ex.Status(id)
	require.ErrorIs(t, err, executor.ErrJobNotFound)
	require.ErrorIs(t, ex.Cancel(id), executor.ErrJobNotFound)
}
