package approval

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// putSignal returns an OnPending option that sends each request its queue
// has put on the channel it returns, which has room for n. OnPending runs
// after the store has the request, so a request received is listed.
func putSignal(n int) (QueueOption, <-chan Pending) {
	put := make(chan Pending, n)
	return OnPending(func(_ *Queue, p Pending) { put <- p }), put
}

// waitLen waits until q has put n more requests (told on put, from
// putSignal), then checks that it lists want.
func waitLen(t *testing.T, q *Queue, put <-chan Pending, n, want int) {
	t.Helper()
	guard := time.NewTimer(10 * time.Second)
	defer guard.Stop()
	for i := range n {
		select {
		case <-put:
		case <-guard.C:
			t.Fatalf("%d of %d requests were put in 10 s", i, n)
		}
	}
	require.Equal(t, want, q.Len())
}

func TestQueueThousandWaiters(t *testing.T) {
	const n = 1000
	signal, put := putSignal(n)
	q := NewQueue(signal)
	type got struct {
		call string
		d    Decision
		err  error
	}
	results := make(chan got, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := "call-" + string(rune('a'+i%26)) + "-" + time.Duration(i).String()
			d, err := q.Approve(context.Background(), Request{Call: tool.Call{ID: id, Name: "t"}})
			results <- got{id, d, err}
		}()
	}
	waitLen(t, q, put, n, n)
	pending := q.Pending()
	require.Len(t, pending, n)
	for i := 1; i < n; i++ {
		require.False(t, pending[i].Since.Before(pending[i-1].Since), "oldest first")
	}

	// Resolve from another goroutine: even positions approve, odd deny,
	// each decision naming the call it answers.
	resolved := make(chan error, 1)
	go func() {
		for i, p := range pending {
			var d Decision
			if i%2 == 0 {
				d = Approved(p.Request.Call.ID)
			} else {
				d = Denied(p.Request.Call.ID, "no")
			}
			if err := q.Resolve(p.ID, d); err != nil {
				resolved <- err
				return
			}
		}
		resolved <- nil
	}()
	require.NoError(t, <-resolved)
	wg.Wait()
	close(results)
	approved, denied := 0, 0
	for r := range results {
		require.NoError(t, r.err)
		assert.Equal(t, r.call, r.d.DecidedBy, "every waiter got the decision for its own request")
		switch r.d.Kind {
		case Approve:
			approved++
		case Deny:
			denied++
		}
	}
	assert.Equal(t, n/2, approved)
	assert.Equal(t, n/2, denied)
	assert.Zero(t, q.Len())
	// goleak (TestMain) checks that no waiter is left behind.
}

func TestQueueResolveErrors(t *testing.T) {
	signal, put := putSignal(1)
	q := NewQueue(signal)
	done := make(chan Decision, 1)
	go func() {
		d, _ := q.Approve(context.Background(), Request{Call: tool.Call{Name: "t"}})
		done <- d
	}()
	waitLen(t, q, put, 1, 1)
	id := q.Pending()[0].ID

	assert.ErrorIs(t, q.Resolve("apr-nope", Approved("u")), ErrNotPending)
	err := q.Resolve(id, Decision{})
	assert.ErrorIs(t, err, ErrMalformed, "a malformed decision is refused")
	assert.Equal(t, 1, q.Len(), "and the request stays pending")
	assert.ErrorIs(t, q.Resolve(id, Decision{Kind: Modify}), ErrMalformed)

	require.NoError(t, q.Resolve(id, Modified("u", json.RawMessage(`{"a":1}`))))
	assert.Equal(t, Modify, (<-done).Kind)
	err = q.Resolve(id, Approved("u"))
	assert.ErrorIs(t, err, ErrNotPending, "resolving twice is an error")
	assert.Contains(t, err.Error(), "already resolved")
}

func TestQueueContextAndTimeout(t *testing.T) {
	q := NewQueue(QueueTimeout(20 * time.Millisecond))
	_, err := q.Approve(context.Background(), Request{})
	assert.ErrorIs(t, err, ErrTimeout)
	assert.Zero(t, q.Len(), "a timed-out request leaves the queue")

	signal, put := putSignal(1)
	q = NewQueue(QueueTimeout(0), signal)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := q.Approve(ctx, Request{})
		errc <- err
	}()
	waitLen(t, q, put, 1, 1)
	id := q.Pending()[0].ID
	cancel()
	assert.ErrorIs(t, <-errc, context.Canceled)
	assert.Zero(t, q.Len())
	assert.ErrorIs(t, q.Resolve(id, Approved("u")), ErrNotPending, "a cancelled request cannot be resolved")
}

func TestQueueOnPendingReachesItsQueue(t *testing.T) {
	// The callback gets the queue it fires for: no forward var needed.
	q := NewQueue(OnPending(func(q *Queue, p Pending) {
		go func() { _ = q.Resolve(p.ID, Approved("ui")) }()
	}))
	d, err := q.Approve(context.Background(), Request{Call: tool.Call{Name: "t"}})
	require.NoError(t, err)
	assert.Equal(t, "ui", d.DecidedBy)
}

func TestQueueNextHandsOutEachRequestOnceOldestFirst(t *testing.T) {
	signal, put := putSignal(2)
	q := NewQueue(signal)
	ctx := context.Background()
	type answer struct {
		d   Decision
		err error
	}
	answers := make(chan answer, 2)
	for _, name := range []string{"first", "second"} {
		go func() {
			d, err := q.Approve(ctx, Request{Call: tool.Call{Name: name}})
			answers <- answer{d, err}
		}()
		waitLen(t, q, put, 1, map[string]int{"first": 1, "second": 2}[name])
	}
	p1, err := q.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, "first", p1.Request.Call.Name)
	p2, err := q.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, "second", p2.Request.Call.Name, "a request handed out is not handed out again")

	// Nothing left to hand out: Next waits, and gives up with its context.
	short, cancel := context.WithCancel(ctx)
	cancel()
	_, err = q.Next(short)
	assert.ErrorIs(t, err, context.Canceled)

	require.NoError(t, q.Resolve(p1.ID, Approved("ui")))
	require.NoError(t, q.Resolve(p2.ID, Denied("ui", "no")))
	for range 2 {
		a := <-answers
		require.NoError(t, a.err)
	}
}

func TestQueueNextWakesOnANewRequest(t *testing.T) {
	q := NewQueue()
	ctx := context.Background()
	got := make(chan Pending, 1)
	go func() {
		p, err := q.Next(ctx)
		if err == nil {
			got <- p
		}
		close(got)
	}()
	done := make(chan error, 1)
	go func() {
		_, err := q.Approve(ctx, Request{Call: tool.Call{Name: "late"}})
		done <- err
	}()
	p, ok := <-got
	require.True(t, ok, "Next returned without a request")
	assert.Equal(t, "late", p.Request.Call.Name)
	require.NoError(t, q.Resolve(p.ID, Approved("ui")))
	require.NoError(t, <-done)
}

// Two queues over one store are two instances of a fleet: a request one
// puts, the other lists, hands out with Next and decides; the waiter wakes
// once, with that decision.
func TestQueuesSharingAStore(t *testing.T) {
	store := NewMemoryStore()
	a := NewQueue(QueueStore(store))
	b := NewQueue(QueueStore(store), QueuePoll(5*time.Millisecond))
	ctx := context.Background()
	got := make(chan Decision, 2)
	go func() {
		d, err := a.Approve(ctx, Request{Call: tool.Call{ID: "call-1", Name: "deploy", Args: json.RawMessage(`{"env":"prod"}`)}})
		if err == nil {
			got <- d
		}
		close(got)
	}()
	p, err := b.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, "deploy", p.Request.Call.Name)
	require.NoError(t, b.Resolve(p.ID, Approved("bob")))
	assert.ErrorIs(t, a.Resolve(p.ID, Denied("eve", "late")), ErrNotPending, "decided once")
	d, ok := <-got
	require.True(t, ok)
	assert.Equal(t, "bob", d.DecidedBy)
	_, more := <-got
	assert.False(t, more, "the waiter woke once")
}

// The same call asked again (a job run again after a crash: its waiter died
// after the decision, before it was delivered) finds the decision already
// made, once; other arguments are another question.
func TestARerunFindsItsEarlierDecision(t *testing.T) {
	q := NewQueue(QueueTimeout(time.Minute))
	ctx := context.Background()
	req := Request{Call: tool.Call{ID: "job-7", Name: "deploy", Session: "s", Args: json.RawMessage(`{"env": "prod", "n": 1}`)}}
	// The first run's waiter put the request and died; a person decided it.
	require.NoError(t, q.Store().Put(ctx, Pending{ID: RequestID(req), Request: req, Since: time.Now(), Expires: time.Now().Add(time.Minute)}))
	id := q.Pending()[0].ID
	assert.Equal(t, RequestID(req), id)
	require.NoError(t, q.Resolve(id, Approved("alice")))

	other := req
	other.Call.Args = json.RawMessage(`{"env":"staging","n":1}`)
	assert.NotEqual(t, RequestID(req), RequestID(other))
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err := q.Approve(short, other)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "other arguments wait for their own decision")
	assert.Zero(t, q.Len(), "the request left the queue with its waiter")

	again := req
	again.Call.Args = json.RawMessage(`{"n":1,"env":"prod"}`) // the same arguments, written otherwise
	d, err := q.Approve(ctx, again)
	require.NoError(t, err)
	assert.Equal(t, "alice", d.DecidedBy, "found without asking")

	// Once: the approval approved that run, and a third is asked again.
	third, cancelThird := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancelThird()
	_, err = q.Approve(third, req)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "an approval delivered approves no further run")
}

// An approval id names the principal and the agent: another principal's
// call that reuses a call id (ids come from models and clients, and a
// fleet's database holds every tenant's decisions), session and arguments
// is another question, not a decision already made for someone else.
func TestAnotherPrincipalsCallIsAnotherQuestion(t *testing.T) {
	q := NewQueue(QueueTimeout(time.Minute))
	ctx := context.Background()
	req := Request{Call: tool.Call{ID: "call_0", Name: "deploy", Args: json.RawMessage(`{"env":"prod"}`)},
		Principal: tool.Principal{ID: "alice"}}
	// Decided, not yet delivered (its waiter died): an approval delivered
	// is spent, and would be found by no one.
	require.NoError(t, q.Store().Put(ctx, Pending{ID: RequestID(req), Request: req, Since: time.Now(), Expires: time.Now().Add(time.Minute)}))
	require.NoError(t, q.Resolve(q.Pending()[0].ID, Approved("ops")))

	other := req
	other.Principal = tool.Principal{ID: "mallory"}
	assert.NotEqual(t, RequestID(req), RequestID(other))
	agent := req
	agent.Call.Agent = "intruder"
	assert.NotEqual(t, RequestID(req), RequestID(agent))
	// Principal ids are per tenant: globex's alice is not acme's.
	acme, globex := req, req
	acme.Principal.Tenant, globex.Principal.Tenant = "acme", "globex"
	assert.NotEqual(t, RequestID(acme), RequestID(globex), "another tenant's alice is another question")
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err := q.Approve(short, other)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "mallory waits for her own decision")
}

// A request whose waiter died (a worker killed while it waited) stays
// pending in a shared store until it expires. The same call run again later
// must be asked again, not time out at once on the dead request's expiry.
func TestAnExpiredRequestIsAskedAgain(t *testing.T) {
	store := NewMemoryStore()
	ctx := context.Background()
	req := Request{Call: tool.Call{ID: "job-9", Name: "deploy", Args: json.RawMessage(`{}`)}}
	past := time.Now().Add(-time.Hour)
	require.NoError(t, store.Put(ctx, Pending{ID: RequestID(req), Request: req, Since: past, Expires: past.Add(time.Minute)}))

	signal, put := putSignal(1)
	q := NewQueue(QueueStore(store), QueueTimeout(time.Minute), signal)
	type result struct {
		d   Decision
		err error
	}
	done := make(chan result, 1)
	go func() { d, err := q.Approve(ctx, req); done <- result{d, err} }()
	waitLen(t, q, put, 1, 1)
	require.NoError(t, q.Resolve(RequestID(req), Approved("ops")))
	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, "ops", r.d.DecidedBy)
}
