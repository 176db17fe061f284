package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// One pending approval decided at once through five instances (each its
// own pool and store): exactly one decision is taken, and it is the one the
// waiter gets.
func TestConcurrentDecisionsDecideOnce(t *testing.T) {
	dsn := database(t)
	ctx := context.Background()
	var stores []*postgres.Stores
	for range 5 {
		s := postgres.New(newPool(t, dsn))
		t.Cleanup(s.Close)
		stores = append(stores, s)
	}
	for round := range 10 {
		req := approval.Request{Call: tool.Call{ID: "c" + string(rune('a'+round)), Name: "deploy", Args: json.RawMessage(`{}`)}}
		id := approval.RequestID(req)
		require.NoError(t, stores[0].Approvals.Put(ctx, approval.Pending{ID: id, Request: req, Since: time.Now()}))
		var wins atomic.Int64
		var winner atomic.Value
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, s := range stores {
			for j := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					by := string(rune('A'+i)) + string(rune('0'+j))
					err := s.Approvals.Decide(ctx, id, approval.Decision{Kind: approval.Approve, DecidedBy: by})
					if err == nil {
						wins.Add(1)
						winner.Store(by)
						return
					}
					assert.ErrorIs(t, err, approval.ErrNotPending)
				}()
			}
		}
		close(start)
		wg.Wait()
		require.EqualValues(t, 1, wins.Load(), "round %d: one decision", round)
		d, err := stores[4].Approvals.Await(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, winner.Load(), d.DecidedBy)
	}
}

// Principal ids are unique within a tenant, not across tenants. A call of
// alice in tenant "acme" was approved; the same call id, tool, session and
// arguments from alice in tenant "globex" is a different question and must
// not find acme's decision (nor wait on acme's pending request and get
// the decision a person made seeing acme's).
func TestApprovalOfOneTenantIsNotAnothers(t *testing.T) {
	dsn := database(t)
	a := postgres.New(newPool(t, dsn))
	t.Cleanup(a.Close)
	b := postgres.New(newPool(t, dsn))
	t.Cleanup(b.Close)
	ctx := context.Background()
	call := tool.Call{ID: "call-1", Name: "deploy", Session: "s", Args: json.RawMessage(`{"env":"prod"}`)}
	acme := approval.Request{Call: call, Principal: tool.Principal{ID: "alice", Tenant: "acme"}}
	globex := approval.Request{Call: call, Principal: tool.Principal{ID: "alice", Tenant: "globex"}}

	// Pending: globex's call must not wait on acme's request.
	qa := approval.NewQueue(approval.QueueStore(a.Approvals), approval.QueueTimeout(time.Minute))
	done := make(chan error, 1)
	go func() { _, err := qa.Approve(ctx, acme); done <- err }()
	// Next returns as soon as qa has put acme's request (qa's own puts wake it).
	nctx, cancelNext := context.WithTimeout(ctx, 10*time.Second)
	defer cancelNext()
	pa, err := qa.Next(nctx)
	require.NoError(t, err, "acme's request is pending")

	// qb tells of globex's request once it is in the store (OnPending
	// must not block: the second Approve below puts again).
	putB := make(chan approval.Pending, 1)
	qb := approval.NewQueue(approval.QueueStore(b.Approvals), approval.QueueTimeout(time.Minute),
		approval.OnPending(func(_ *approval.Queue, p approval.Pending) {
			select {
			case putB <- p:
			default:
			}
		}))
	got := make(chan approval.Decision, 1)
	errs := make(chan error, 1)
	// globex's call may still wait for its own decision when the test
	// ends: it is cancelled then, and waited for.
	ctxB, cancelB := context.WithCancel(ctx)
	exited := make(chan struct{})
	t.Cleanup(func() { cancelB(); <-exited })
	go func() {
		defer close(exited)
		d, err := qb.Approve(ctxB, globex)
		if err != nil {
			errs <- err
			return
		}
		got <- d
	}()
	// Wait until globex's request is pending beside acme's (the store
	// lists both), or was refused.
	select {
	case <-putB:
		assert.Equal(t, 2, qb.Len(), "globex's request is pending beside acme's")
	case err := <-errs:
		errs <- err // the waiter has returned: read again below
	case d := <-got:
		t.Fatalf("globex's call got a decision before anyone decided: %+v", d)
	case <-nctx.Done():
		t.Fatal("globex's request was neither put nor refused")
	}
	require.NoError(t, qa.Resolve(pa.ID, approval.Approved("acme-ops")))
	require.NoError(t, <-done)
	// A window, not a synchronisation: no event says "did not get acme's
	// decision", so a wrong delivery is given 3 s to show.
	select {
	case d := <-got:
		t.Fatalf("globex's call got acme's decision: %+v", d)
	case err := <-errs:
		t.Logf("refused: %v", err)
	case <-time.After(3 * time.Second):
		t.Log("still waiting for its own decision")
	}

	// Decided: globex's call run later must not find acme's decision.
	ctx2, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	d, err := qb.Approve(ctx2, globex)
	require.Error(t, err, "globex's call found acme's decision %+v", d)
}

// A slow database (the buckets' rows locked by a stuck transaction) does
// not admit a call: Take waits or fails, and never grants while the rows
// are held.
func TestRateLimitDoesNotAdmitWhileTheBucketsAreLocked(t *testing.T) {
	dsn := database(t)
	pool := newPool(t, dsn)
	s := postgres.New(pool)
	t.Cleanup(s.Close)
	ctx := context.Background()
	bucket := []ratelimit.Bucket{{Key: "principal/5:alice", Rate: ratelimit.Per(1, time.Hour)}}
	g, err := s.RateLimits.Take(ctx, bucket)
	require.NoError(t, err)
	require.True(t, g.OK)

	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	_, err = tx.Exec(ctx, `SELECT * FROM toolbelt_ratelimit FOR UPDATE`)
	require.NoError(t, err)

	other := postgres.New(newPool(t, dsn))
	t.Cleanup(other.Close)
	tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	g, err = other.RateLimits.Take(tctx, bucket)
	require.Error(t, err)
	assert.False(t, g.OK)
	assert.True(t, errors.Is(err, context.DeadlineExceeded) || tctx.Err() != nil, "%v", err)
}

// A tool that is not idempotent finished its work (it returned success)
// just as its instance stopped and cancelled it. The job must say what
// happened, once: not be handed to another instance, whose attempt then
// says the work may not have been done and should be submitted again (a
// second payment).
func TestAJobThatFinishedAsItsInstanceStoppedKeepsItsResult(t *testing.T) {
	dsn := database(t)
	ctx := within(t, 2*time.Minute)
	var paid atomic.Int64
	reg, id := payStoppedMidRun(t, ctx, dsn, func(ctx context.Context) (string, error) {
		paid.Add(1)
		<-ctx.Done()                 // the instance stops while the payment is on its way
		return "paid invoice 7", nil // and it went through
	})

	c := postgres.New(newPool(t, dsn), postgres.WithJobs(postgres.JobsConfig{Workers: 1}))
	t.Cleanup(c.Close)
	exC, err := executor.New(reg, executor.WithJobStore(c.Jobs))
	require.NoError(t, err)
	res, err := exC.Wait(ctx, id)
	require.NoError(t, err, "%+v", res)
	assert.Equal(t, tool.StatusSucceeded, res.Status)
	assert.EqualValues(t, 1, paid.Load())
}

// Instances' clocks drift; the database's is the one they share. An
// instance whose clock runs two hours late asks a question that expires in
// a minute (by its clock): the request must be pending for that minute on
// the database's clock, decidable from another instance, and its waiter
// must get the decision, not time out at once (denied without a person
// seeing it). One whose clock runs a day early must not keep its request
// pending for a day.
func TestApprovalExpiryIsOnTheDatabasesClock(t *testing.T) {
	dsn := database(t)
	late := postgres.New(newPool(t, dsn))
	t.Cleanup(late.Close)
	lateClock := func() time.Time { return time.Now().Add(-2 * time.Hour) }
	postgres.SetApprovalClock(late.Approvals, lateClock)
	other := postgres.New(newPool(t, dsn))
	t.Cleanup(other.Close)
	ctx := within(t, time.Minute)

	req := approval.Request{Call: tool.Call{ID: "c1", Name: "deploy", Args: json.RawMessage(`{}`)}}
	id := approval.RequestID(req)
	now := lateClock()
	require.NoError(t, late.Approvals.Put(ctx, approval.Pending{ID: id, Request: req, Since: now, Expires: now.Add(time.Minute)}))
	done := make(chan error, 1)
	go func() {
		d, err := late.Approvals.Await(ctx, id)
		if err == nil && d.DecidedBy != "ops" {
			err = errors.New("decided by " + d.DecidedBy)
		}
		done <- err
	}()
	list, err := other.Approvals.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1, "pending for a minute on the database's clock")
	assert.WithinDuration(t, time.Now().Add(time.Minute), list[0].Expires, 10*time.Second)
	require.NoError(t, other.Approvals.Decide(ctx, id, approval.Approved("ops")))
	require.NoError(t, <-done)

	early := postgres.New(newPool(t, dsn))
	t.Cleanup(early.Close)
	earlyClock := func() time.Time { return time.Now().Add(24 * time.Hour) }
	postgres.SetApprovalClock(early.Approvals, earlyClock)
	req2 := approval.Request{Call: tool.Call{ID: "c2", Name: "deploy", Args: json.RawMessage(`{}`)}}
	now = earlyClock()
	require.NoError(t, early.Approvals.Put(ctx, approval.Pending{ID: approval.RequestID(req2), Request: req2, Since: now, Expires: now.Add(time.Minute)}))
	list, err = other.Approvals.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.WithinDuration(t, time.Now().Add(time.Minute), list[0].Expires, 10*time.Second, "expires in a minute, not a day")
}

// In a fleet being upgraded, attempt 2 of a job may land on an instance
// that does not have the tool. Its result must not say only "no tool
// named pay" (nothing happened, submit it again) when attempt 1 was cut
// short mid-payment: it says the earlier attempt may have done its work.
func TestARerunOnAnInstanceWithoutTheToolSaysTheWorkMayBeDone(t *testing.T) {
	dsn := database(t)
	ctx := within(t, 2*time.Minute)
	_, id := payStoppedMidRun(t, ctx, dsn, func(ctx context.Context) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})

	c := newJobInstance(t, dsn, postgres.JobsConfig{Workers: 1}) // report, charge, hold: no pay
	res, err := c.ex.Wait(ctx, id)
	require.Error(t, err)
	assert.Contains(t, res.Error.Message, "may have done its work")
}

// Sweep runs while calls take from the buckets it deletes (idle ones, full
// again): a call must never be refused as "unavailable" because the row it
// found a moment before was swept.
func TestSweepDuringTakesRefusesNothing(t *testing.T) {
	dsn := database(t)
	ctx := within(t, time.Minute)
	a := postgres.New(newPool(t, dsn))
	t.Cleanup(a.Close)
	b := postgres.New(newPool(t, dsn))
	t.Cleanup(b.Close)
	rate := ratelimit.Per(1000, time.Second) // full again a millisecond after a take
	stop := make(chan struct{})
	var sweeps sync.WaitGroup
	sweeps.Add(1)
	go func() {
		defer sweeps.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			_, err := b.RateLimits.Sweep(ctx)
			assert.NoError(t, err)
		}
	}()
	var wg sync.WaitGroup
	var failed atomic.Int64
	var lastErr atomic.Value
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				key := "k" + string(rune('a'+(w+i)%3))
				_, err := a.RateLimits.Take(ctx, []ratelimit.Bucket{{Key: key, Rate: rate}})
				if err != nil {
					failed.Add(1)
					lastErr.Store(err.Error())
				}
				// Not a synchronisation: the database's clock must move for a
				// bucket to be full again, which is what makes Sweep delete it.
				time.Sleep(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	close(stop)
	sweeps.Wait()
	assert.Zero(t, failed.Load(), "takes failed: last %v", lastErr.Load())
}

// A call whose buckets name one key twice is taken from, not refused with
// an error (as the in-memory store does).
func TestTakeWithARepeatedKey(t *testing.T) {
	dsn := database(t)
	s := postgres.New(newPool(t, dsn))
	t.Cleanup(s.Close)
	ctx := within(t, time.Minute)
	b := ratelimit.Bucket{Key: "k", Rate: ratelimit.Per(5, time.Hour)}
	g, err := s.RateLimits.Take(ctx, []ratelimit.Bucket{b, b})
	require.NoError(t, err)
	assert.True(t, g.OK)
	require.NoError(t, s.RateLimits.Give(ctx, []ratelimit.Bucket{b, b}))
}

// A job's result holding a NUL (a tool that read a binary file) is
// recorded: River keeps results in jsonb, which refuses the escape
// \u0000. The job must finish with its result, once.
func TestAJobWhoseResultHoldsANUL(t *testing.T) {
	dsn := database(t)
	ctx := within(t, time.Minute)
	var runs atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.Func("read", "Read a file", func(context.Context, struct{}) (string, error) {
		runs.Add(1)
		return "ELF\x00\x01", nil
	}, tool.WithRisk(tool.RiskHigh)))
	s := postgres.New(newPool(t, dsn), postgres.WithJobs(postgres.JobsConfig{Workers: 1, Timeout: 2 * time.Second}))
	t.Cleanup(s.Close)
	ex, err := executor.New(reg, executor.WithJobStore(s.Jobs))
	require.NoError(t, err)
	id, err := ex.Submit(ctx, tool.Call{ID: "r", Name: "read", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := ex.Wait(wctx, id)
	require.NoError(t, err, "%+v", res)
	require.Equal(t, tool.StatusSucceeded, res.Status, "%+v", res)
	require.Len(t, res.Content, 1)
	assert.Equal(t, "ELF\x00\x01", res.Content[0].Text)
	assert.EqualValues(t, 1, runs.Load())
}

// The database answers nothing (a session holds the buckets' rows; the
// same as a server that stopped answering): a call with no deadline of
// its own is refused within a bounded time, not held forever.
func TestRateLimitRefusesWhenTheDatabaseDoesNotAnswer(t *testing.T) {
	dsn := database(t)
	pool := newPool(t, dsn)
	s := postgres.New(pool)
	t.Cleanup(s.Close)
	ctx := context.Background()
	bucket := []ratelimit.Bucket{{Key: "principal/5:alice", Rate: ratelimit.Per(10, time.Hour)}}
	_, err := s.RateLimits.Take(ctx, bucket)
	require.NoError(t, err)

	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	_, err = tx.Exec(ctx, `SELECT * FROM toolbelt_ratelimit FOR UPDATE`)
	require.NoError(t, err)

	other := postgres.New(newPool(t, dsn))
	t.Cleanup(other.Close)
	type taken struct {
		g   ratelimit.Grant
		err error
	}
	done := make(chan taken, 2)
	go func() { g, err := other.RateLimits.Take(ctx, bucket); done <- taken{g, err} }()
	go func() { done <- taken{err: other.RateLimits.Give(ctx, bucket)} }()
	for range 2 {
		select {
		case r := <-done:
			require.Error(t, r.err)
			assert.False(t, r.g.OK)
		case <-time.After(15 * time.Second):
			t.Fatal("the rate limit waited 15 s for the database without refusing")
		}
	}
}

// A principal's id may hold any bytes (the rate limits store such keys);
// its jobs are submitted, run and report it as it is.
func TestAJobOfAPrincipalWithANUL(t *testing.T) {
	dsn := database(t)
	ctx := within(t, time.Minute)
	in := newJobInstance(t, dsn, postgres.JobsConfig{Workers: 1})
	call := tool.Call{ID: "n", Name: "report", Args: json.RawMessage(`{}`), Session: "s\x00", Principal: tool.Principal{ID: "bob\x00admin", Tenant: "t\x00"}}
	id, err := in.ex.Submit(ctx, call)
	require.NoError(t, err)
	res, err := in.ex.Wait(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, tool.StatusSucceeded, res.Status)
	st, err := in.ex.StatusContext(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "n", st.CallID)
	assert.Equal(t, "report", st.Tool)
}

// A job of a tool that is not idempotent waits for a person when its
// instance stops (a rolling deploy). Its tool never ran, so the job runs
// again on another instance, asking again; it must not fail saying the
// earlier attempt may have done its work.
func TestAJobStoppedBeforeItsToolRanRunsAgain(t *testing.T) {
	dsn := database(t)
	ctx := within(t, time.Minute)
	var paid atomic.Int64
	// newPay returns an instance whose approval queue tells asked of each
	// request it puts (in the database when it is told).
	newPay := func() (*postgres.Stores, *executor.Executor, <-chan approval.Pending) {
		reg := registry.New()
		reg.MustRegister(tool.Func("pay", "Pay an invoice", func(context.Context, struct{}) (string, error) {
			paid.Add(1)
			return "paid", nil
		}, tool.WithRisk(tool.RiskHigh), tool.WithApproval()))
		s := postgres.New(newPool(t, dsn), postgres.WithJobs(postgres.JobsConfig{Workers: 1}))
		t.Cleanup(s.Close)
		asked := make(chan approval.Pending, 1)
		gate := approvalgate.New(approval.NewQueue(approval.QueueStore(s.Approvals), approval.QueueTimeout(time.Minute),
			approval.OnPending(func(_ *approval.Queue, p approval.Pending) {
				select {
				case asked <- p:
				default:
				}
			})))
		ex, err := executor.New(reg, executor.WithJobStore(s.Jobs), executor.WithExtensions(gate, gate.Guard()))
		require.NoError(t, err)
		return s, ex, asked
	}
	b, exB, askedB := newPay()
	id, err := exB.Submit(ctx, tool.Call{ID: "p", Name: "pay", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "alice"}})
	require.NoError(t, err)
	select {
	case <-askedB:
	case <-ctx.Done():
		t.Fatal("the job on the first instance never asked")
	}
	l, err := b.Approvals.List(ctx)
	require.NoError(t, err)
	require.Len(t, l, 1)
	stopCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	require.NoError(t, b.Jobs.Stop(stopCtx))

	c, exC, askedC := newPay()
	type waited struct {
		res *tool.Result
		err error
	}
	// Wait returns when the job is done: asked again, it is not done
	// before the decision below.
	done := make(chan waited, 1)
	go func() { res, err := exC.Wait(ctx, id); done <- waited{res, err} }()
	select {
	case <-askedC:
	case w := <-done:
		t.Fatalf("asked again, not failed: the job ended with %+v, %v", w.res, w.err)
	case <-ctx.Done():
		t.Fatal("the job on the second instance never asked")
	}
	pending, err := c.Approvals.List(ctx)
	require.NoError(t, err)
	require.Len(t, pending, 1, "asked again, not failed")
	require.NoError(t, c.Approvals.Decide(ctx, pending[0].ID, approval.Approved("ops")))
	w := <-done
	res := w.res
	require.NoError(t, w.err, "%v", res.Error)
	assert.Equal(t, tool.StatusSucceeded, res.Status)
	assert.EqualValues(t, 1, paid.Load())
}

// payStoppedMidRun submits a call of a high-risk "pay" tool, run by pay, to
// an instance of its own, and stops that instance while pay runs. It
// returns the registry with the tool (for another instance) and the job.
func payStoppedMidRun(t *testing.T, ctx context.Context, dsn string, pay func(context.Context) (string, error)) (*registry.Registry, executor.JobID) {
	t.Helper()
	started := make(chan struct{}, 1)
	reg := registry.New()
	reg.MustRegister(tool.Func("pay", "Pay an invoice", func(ctx context.Context, _ struct{}) (string, error) {
		started <- struct{}{}
		return pay(ctx)
	}, tool.WithRisk(tool.RiskHigh)))
	b := postgres.New(newPool(t, dsn), postgres.WithJobs(postgres.JobsConfig{Workers: 1}))
	t.Cleanup(b.Close)
	exB, err := executor.New(reg, executor.WithJobStore(b.Jobs))
	require.NoError(t, err)
	id, err := exB.Submit(ctx, tool.Call{ID: "p", Name: "pay", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	<-started
	stopCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	require.NoError(t, b.Jobs.Stop(stopCtx))
	return reg, id
}
