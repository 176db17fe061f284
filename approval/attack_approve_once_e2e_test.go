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

// An approval approves one run. A loop of the user's own (a provider
// adapter, executor.Execute, approvalgate over an approval.Queue) gives a
// Gemini call without an id the id wire.Gemini makes up, "pay#0", in every
// turn: the same call id, tool, arguments, session and principal, so the
// same approval id. The queue took that for "the same call run again" (a
// job retried) and answered it with the decision already made: the person
// approved one payment of 100 and every later turn that repeated it paid
// again, nobody asked.
func TestAttackAnApprovalIsNotReusedByTheSameCallRunAgain(t *testing.T) {
	var paid atomic.Int32
	reg := registry.New()
	reg.MustRegister(tool.Func("pay", "Pay an amount", func(context.Context, struct {
		Amount int `json:"amount"`
	}) (string, error) {
		paid.Add(1)
		return "paid", nil
	}, tool.WithApproval()))
	q := approval.NewQueue(approval.QueueTimeout(time.Minute))
	gate := approvalgate.New(q)
	ex := executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))

	// The person: every request put in the queue is handed to the test.
	ctx, stop := context.WithCancel(context.Background())
	asks := make(chan approval.Pending)
	person := make(chan struct{})
	go func() {
		defer close(person)
		for {
			p, err := q.Next(ctx)
			if err != nil {
				return
			}
			select {
			case asks <- p:
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(func() { stop(); <-person })

	alice := tool.Principal{ID: "alice", Tenant: "acme"}
	call := tool.Call{ID: "pay#0", Name: "pay", Args: json.RawMessage(`{"amount":100}`), Session: "s1", Principal: alice}
	type outcome struct {
		res *tool.Result
		err error
	}
	execute := func() <-chan outcome {
		out := make(chan outcome, 1)
		go func() {
			res, err := ex.Execute(context.Background(), call)
			out <- outcome{res, err}
		}()
		return out
	}
	// answer waits for the person to be asked, then gives d; a call that
	// ends before the person is asked ran (or failed) unasked.
	answer := func(t *testing.T, turn int, done <-chan outcome, d approval.Decision) outcome {
		t.Helper()
		select {
		case p := <-asks:
			assert.Equal(t, "pay#0", p.Request.Call.ID)
			require.NoError(t, q.Resolve(p.ID, d))
		case o := <-done:
			t.Fatalf("turn %d: the call ended without the person being asked (paid %d times, err %v)", turn, paid.Load(), o.err)
		case <-time.After(30 * time.Second):
			t.Fatalf("turn %d: the person was never asked", turn)
		}
		return <-done
	}

	o := answer(t, 1, execute(), approval.Approved("alice"))
	require.NoError(t, o.err)
	require.True(t, o.res.OK())
	require.Equal(t, int32(1), paid.Load())

	// The model repeats pay#0 in the next turn: the person is asked again
	// and says no.
	o = answer(t, 2, execute(), approval.Denied("alice", "paid once already"))
	require.Error(t, o.err)
	assert.Equal(t, tool.CodeApprovalDenied, o.res.Error.Code)
	assert.Equal(t, int32(1), paid.Load(), "the repeated call ran on the first call's approval")

	// A denial stands (finding it again is the safe direction): the same
	// call once more is refused without asking.
	o = <-execute()
	require.Error(t, o.err)
	assert.Equal(t, tool.CodeApprovalDenied, o.res.Error.Code)
	assert.Equal(t, int32(1), paid.Load())
}

// Approved again, the same call runs again, once per approval.
func TestAttackEachApprovalRunsTheSameCallOnce(t *testing.T) {
	var paid, asked atomic.Int32
	reg := registry.New()
	reg.MustRegister(tool.Func("pay", "Pay an amount", func(context.Context, struct {
		Amount int `json:"amount"`
	}) (string, error) {
		paid.Add(1)
		return "paid", nil
	}, tool.WithApproval()))
	// The person approves every request it is shown (OnPending is told of
	// each Put; only a pending one can be resolved).
	q := approval.NewQueue(approval.QueueTimeout(time.Minute), approval.OnPending(func(q *approval.Queue, p approval.Pending) {
		if q.Resolve(p.ID, approval.Approved("alice")) == nil {
			asked.Add(1)
		}
	}))
	gate := approvalgate.New(q)
	ex := executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
	call := tool.Call{ID: "pay#0", Name: "pay", Args: json.RawMessage(`{"amount":100}`), Session: "s1", Principal: tool.Principal{ID: "alice"}}
	for turn := 1; turn <= 3; turn++ {
		res, err := ex.Execute(context.Background(), call)
		require.NoError(t, err, "turn %d", turn)
		require.True(t, res.OK(), "turn %d", turn)
		assert.Equal(t, int32(turn), asked.Load(), "turn %d: the person is asked for each run", turn)
	}
	assert.Equal(t, int32(3), paid.Load())
}
