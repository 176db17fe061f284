package agent_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A caller cancels a run mid-turn: while a call waits in its backend, or
// while a payment waits for a person's approval (its sibling waiting
// with it). The backend sees the cancellation, the payment never runs,
// every call of the turn gets an error result, the run stops with
// StopContext, the model is not asked again, and no goroutine is left
// (goleak, TestMain). Guard test: it passed on the code as it was.
func TestAttackS30CancelMidTurnStopsCalls(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls []string // tools of the turn
	}{
		{"a backend waits", []string{"wait"}},
		{"an approval waits", []string{"wait", "pay"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var paid, sawCancel atomic.Int32
			reg := registry.New()
			reg.MustRegister(
				tool.Func("pay", "Pay", func(context.Context, struct {
					To string `json:"to"`
				}) (string, error) {
					paid.Add(1)
					return "paid", nil
				}, tool.WithApproval()),
				tool.Func("wait", "Wait for the context", func(ctx context.Context, _ struct{}) (string, error) {
					cancel() // the caller gives up while the backend runs
					<-ctx.Done()
					sawCancel.Add(1)
					return "", ctx.Err()
				}),
			)
			// The caller gives up while the person is asked.
			q := approval.NewQueue(approval.OnPending(func(*approval.Queue, approval.Pending) { cancel() }))
			gate := approvalgate.New(q)
			ex := executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
			if len(tc.calls) == 1 {
				ex = executor.MustNew(reg) // nobody is asked: the backend runs
			}
			var turnsAsked atomic.Int32
			model := agent.ModelFunc(func(context.Context, []agent.Message, []tool.Spec) (agent.Message, error) {
				if turnsAsked.Add(1) > 1 {
					return agent.Message{Text: "asked again"}, nil
				}
				var calls []tool.Call
				for _, name := range tc.calls {
					args := `{}`
					if name == "pay" {
						args = `{"to":"mallory"}`
					}
					calls = append(calls, tool.Call{Name: name, Args: json.RawMessage(args)})
				}
				return agent.Message{Calls: calls}, nil
			})
			tr, err := agent.Run(ctx, model, nil, agent.Options{Executor: ex, Tools: []string{"wait", "pay"}})
			require.Error(t, err)
			assert.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, agent.StopContext, tr.Stop)
			assert.Equal(t, int32(1), turnsAsked.Load(), "the model was asked again after the cancel")
			assert.Equal(t, int32(0), paid.Load(), "the payment ran after the cancel")
			if len(tc.calls) == 1 {
				assert.Equal(t, int32(1), sawCancel.Load(), "the waiting backend saw the cancellation")
			}
			require.Len(t, tr.Steps, 1)
			require.Len(t, tr.Steps[0].Results, len(tc.calls))
			for _, r := range tr.Steps[0].Results {
				assert.NotNil(t, r.Error, "%s succeeded after the cancel", r.Tool)
			}
		})
	}
}
