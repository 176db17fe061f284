package approval_test

import (
	"context"
	"encoding/json"
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

// A call whose context ends while its request waits in the queue (the
// user stopped the turn, the gate's own timeout passed) leaves nothing a
// reviewer could still approve: once Execute has returned, the request is
// no longer listed, approving it by id or as listed fails with
// ErrNotPending, and the same call asked again waits for a new decision
// instead of running. Guard test: the rule held on the code as it is (the
// queue withdraws a request whose waiter gives up).
func TestAttackS31CancelledCallLeavesNothingToApprove(t *testing.T) {
	for _, how := range []string{"caller cancelled", "gate timeout"} {
		t.Run(how, func(t *testing.T) {
			var paid atomic.Int32
			reg := registry.New()
			reg.MustRegister(tool.Func("pay", "Pay an amount", func(context.Context, struct {
				Amount int `json:"amount"`
			}) (string, error) {
				paid.Add(1)
				return "paid", nil
			}, tool.WithRisk(tool.RiskHigh)))
			q := approval.NewQueue(approval.QueueTimeout(0))
			opts := []approvalgate.Option{}
			if how == "gate timeout" {
				opts = append(opts, approvalgate.WithTimeout(time.Nanosecond))
			}
			gate := approvalgate.New(q, opts...)
			ex := executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
			call := tool.Call{ID: "pay#0", Name: "pay", Args: json.RawMessage(`{"amount":100}`), Session: "s1",
				Principal: tool.Principal{ID: "alice", Tenant: "acme"}}

			ctx, stop := context.WithCancel(context.Background())
			res := make(chan *tool.Result, 1)
			go func() {
				r, _ := ex.Execute(ctx, call)
				res <- r
			}()
			var seen approval.Pending
			if how == "caller cancelled" {
				asked, cancelAsked := context.WithTimeout(context.Background(), 10*time.Second)
				p, err := q.Next(asked) // returns once the request is pending
				cancelAsked()
				require.NoError(t, err, "the call did not ask the person")
				seen = p
				stop()
			}
			r := <-res
			stop()
			require.NotNil(t, r.Error)
			assert.Equal(t, tool.CodeApprovalDenied, r.Error.Code)
			if seen.ID == "" {
				seen.ID = approval.RequestID(approval.Request{Call: call, Principal: call.Principal})
			}

			assert.Empty(t, q.Pending(), "the given-up request is still listed")
			assert.ErrorIs(t, q.Resolve(seen.ID, approval.Approved("bob")), approval.ErrNotPending, "the given-up request was approved by id")
			if !seen.Since.IsZero() {
				assert.ErrorIs(t, q.ResolvePending(context.Background(), seen, approval.Approved("bob")), approval.ErrNotPending, "the given-up request was approved as listed")
			}

			// The same call asked again waits for a decision of its own.
			ctx2, stop2 := context.WithCancel(context.Background())
			defer stop2()
			again := make(chan *tool.Result, 1)
			gate2 := approvalgate.New(q) // no gate timeout this time
			ex2 := executor.MustNew(reg, executor.WithExtensions(gate2, gate2.Guard()))
			go func() {
				r, _ := ex2.Execute(ctx2, call)
				again <- r
			}()
			select {
			case r := <-again:
				t.Fatalf("the call asked again ended unasked (ran %d times, ok=%v)", paid.Load(), r.OK())
			case <-waitPending(q):
			}
			stop2()
			<-again
			assert.Zero(t, paid.Load(), "the call ran")
		})
	}
}
