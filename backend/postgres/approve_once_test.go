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

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The same call waiting on four instances at once (a job taken twice, a
// model's pay#0 in two sessions' loops of one principal) gets one approval:
// exactly one waiter of all the instances receives it, the others'
// Await ends with ErrNotPending. Every waiter used to receive it, and each
// ran the call.
func TestAttackAnApprovalIsDeliveredToOneInstance(t *testing.T) {
	dsn := database(t)
	ctx := context.Background()
	var stores []*postgres.Stores
	for range 4 {
		s := postgres.New(newPool(t, dsn))
		t.Cleanup(s.Close)
		stores = append(stores, s)
	}
	for round := range 5 {
		req := approval.Request{Call: tool.Call{ID: "pay#0", Name: "pay", Session: fmt.Sprint("s", round), Args: json.RawMessage(`{"amount":100}`)},
			Principal: tool.Principal{ID: "alice", Tenant: "acme"}}
		p := approval.Pending{ID: approval.RequestID(req), Request: req, Since: time.Now(), Expires: time.Now().Add(time.Minute)}
		for _, s := range stores {
			require.NoError(t, s.Approvals.Put(ctx, p))
		}
		type result struct {
			d   approval.Decision
			err error
		}
		results := make(chan result, 3*len(stores))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for _, s := range stores {
			for range 3 {
				wg.Go(func() {
					<-start
					d, err := s.Approvals.Await(ctx, p.ID)
					results <- result{d, err}
				})
			}
		}
		close(start)
		require.NoError(t, stores[round%len(stores)].Approvals.Decide(ctx, p.ID, approval.Approved("bob")))
		wg.Wait() // each Await returns: the row is decided, then delivered
		close(results)
		delivered := 0
		for r := range results {
			if r.err == nil {
				assert.Equal(t, approval.Approve, r.d.Kind)
				delivered++
				continue
			}
			assert.ErrorIs(t, r.err, approval.ErrNotPending, "round %d", round)
		}
		assert.Equal(t, 1, delivered, "round %d: waiters that got the approval", round)
	}
}

// A decision made while its waiter's instance died (decided, never
// delivered) is found by the job run again on another instance, once; run
// a third time, the call is asked again. Another tenant's same call does
// not find it.
func TestApprovalUndeliveredIsFoundOnceOnAnotherInstance(t *testing.T) {
	dsn := database(t)
	a := postgres.New(newPool(t, dsn))
	t.Cleanup(a.Close)
	b := postgres.New(newPool(t, dsn))
	t.Cleanup(b.Close)
	ctx := context.Background()
	call := tool.Call{ID: "job-1", Name: "deploy", Session: "s", Args: json.RawMessage(`{"env":"prod"}`)}
	acme := approval.Request{Call: call, Principal: tool.Principal{ID: "alice", Tenant: "acme"}}
	globex := approval.Request{Call: call, Principal: tool.Principal{ID: "alice", Tenant: "globex"}}

	// Instance a put the request, a person decided, a died before its
	// Await returned.
	require.NoError(t, a.Approvals.Put(ctx, approval.Pending{ID: approval.RequestID(acme), Request: acme, Since: time.Now(), Expires: time.Now().Add(time.Minute)}))
	require.NoError(t, a.Approvals.Decide(ctx, approval.RequestID(acme), approval.Approved("ops")))

	qb := approval.NewQueue(approval.QueueStore(b.Approvals), approval.QueueTimeout(time.Minute))
	short, cancel := context.WithTimeout(ctx, time.Second)
	d, err := qb.Approve(short, globex)
	cancel()
	require.Error(t, err, "globex's call found acme's decision %+v", d)

	d, err = qb.Approve(ctx, acme)
	require.NoError(t, err, "the job run again on another instance finds its decision")
	assert.Equal(t, "ops", d.DecidedBy)

	qa := approval.NewQueue(approval.QueueStore(a.Approvals), approval.QueueTimeout(time.Minute))
	short, cancel = context.WithTimeout(ctx, time.Second)
	defer cancel()
	d, err = qa.Approve(short, acme)
	require.ErrorIs(t, err, context.DeadlineExceeded, "run a third time, the call found %+v", d)
	assert.Empty(t, qa.Pending(), "its waiter gone, the request left the queue")
}
