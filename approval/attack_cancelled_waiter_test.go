package approval_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// decidesAsItGivesUp is a store in which a person's decision lands at the
// moment the waiter's context ends: Await has returned the context's
// error, and the waiter has not withdrawn its request yet.
type decidesAsItGivesUp struct {
	*approval.MemoryStore
	d     approval.Decision
	armed atomic.Bool
}

func (s *decidesAsItGivesUp) Await(ctx context.Context, id string) (approval.Decision, error) {
	d, err := s.MemoryStore.Await(ctx, id)
	if errors.Is(err, context.Canceled) && s.armed.CompareAndSwap(true, false) {
		if derr := s.MemoryStore.Decide(context.Background(), id, s.d); derr != nil {
			panic(derr)
		}
	}
	return d, err
}

// A waiter whose context ended (the user stopped the turn) gave the call
// up: it did not run, and an approval that landed as it gave up approves
// nothing. Left deliverable, it was taken later by the same call asked
// again (the model repeating pay#0 the next day), which ran unasked: "a
// decision never outlives its caller" (Queue.Resolve).
func TestAttackAnApprovalLandingAsItsWaiterGivesUpIsNotTakenLater(t *testing.T) {
	for _, d := range []approval.Decision{approval.Approved("alice"), approval.Modified("alice", json.RawMessage(`{"amount":90}`))} {
		t.Run(d.Kind.String(), func(t *testing.T) {
			var paid atomic.Int32
			reg := registry.New()
			reg.MustRegister(tool.Func("pay", "Pay an amount", func(context.Context, struct {
				Amount int `json:"amount"`
			}) (string, error) {
				paid.Add(1)
				return "paid", nil
			}, tool.WithApproval()))
			store := &decidesAsItGivesUp{MemoryStore: approval.NewMemoryStore(), d: d}
			q := approval.NewQueue(approval.QueueStore(store), approval.QueueTimeout(time.Minute))
			gate := approvalgate.New(q)
			ex := executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
			call := tool.Call{ID: "pay#0", Name: "pay", Args: json.RawMessage(`{"amount":100}`), Session: "s1", Principal: tool.Principal{ID: "alice", Tenant: "acme"}}

			// Turn 1: the person is asked; the user stops the turn as the
			// person approves.
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := ex.Execute(ctx, call)
				done <- err
			}()
			asked, cancelAsked := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancelAsked()
			_, err := q.Next(asked) // returns once the request is pending
			require.NoError(t, err, "the call did not ask the person")
			store.armed.Store(true)
			stop()
			require.Error(t, <-done)
			require.Zero(t, paid.Load(), "the stopped turn did not run")

			// Turn 2: the model repeats the call. It must be asked about.
			ctx2, stop2 := context.WithCancel(context.Background())
			defer stop2()
			res := make(chan *tool.Result, 1)
			go func() {
				r, _ := ex.Execute(ctx2, call)
				res <- r
			}()
			select {
			case r := <-res:
				t.Fatalf("the repeated call ended unasked (ran %d times, ok=%v): it took the approval its stopped turn gave up", paid.Load(), r.OK())
			case <-waitPending(q):
			}
			require.NoError(t, q.Resolve(q.Pending()[0].ID, approval.Denied("alice", "not again")))
			r := <-res
			require.NotNil(t, r.Error)
			assert.Equal(t, tool.CodeApprovalDenied, r.Error.Code)
			assert.Zero(t, paid.Load())
		})
	}
}

// waitPending is closed when q has a request waiting.
func waitPending(q *approval.Queue) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = q.Next(ctx)
	}()
	return ch
}
