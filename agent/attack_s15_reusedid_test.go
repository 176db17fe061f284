package agent_test

import (
	"context"
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

// payWithQueue is a "pay" tool that needs a person's approval, asked
// through an approval.Queue (the dashboard's, a chat UI's): the person
// approves each request for that call only, and asked counts them.
func payWithQueue(t *testing.T) (ex *executor.Executor, paid, asked *atomic.Int32) {
	t.Helper()
	paid, asked = new(atomic.Int32), new(atomic.Int32)
	reg := registry.New()
	reg.MustRegister(tool.Func("pay", "Pay someone", func(context.Context, struct {
		To     string `json:"to"`
		Amount int    `json:"amount"`
	}) (string, error) {
		paid.Add(1)
		return "paid", nil
	}, tool.WithApproval()))
	// OnPending is told of a request whose decision stands too (Put kept
	// it): only one it can still decide is a person's question.
	q := approval.NewQueue(approval.OnPending(func(q *approval.Queue, p approval.Pending) {
		if q.Resolve(p.ID, approval.Approved("alice").WithScope(approval.ScopeCall)) == nil {
			asked.Add(1)
		}
	}))
	gate := approvalgate.New(q)
	ex = executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
	return ex, paid, asked
}

// A person approves one payment; the model makes the same call again in a
// later turn under the id of the approved one. The approval queue takes a
// call id (with its tool, arguments and whom it acts for) as "the same
// call asked again", whose decision stands (a job retried), so the second
// payment ran with nobody asked: the model reused an approval it was given
// for one call. Provider-made ids are never reused within a conversation,
// so a call id seen before in the conversation is a model error, as two
// calls of one turn sharing an id are; nothing of the turn runs.
func TestAttackS15CallIDReusedInALaterTurnReusesItsApproval(t *testing.T) {
	ex, paid, asked := payWithQueue(t)
	pay := tool.Call{ID: "toolu_01", Name: "pay", Args: []byte(`{"to":"mallory","amount":500}`)}
	m := &script{turns: []func([]agent.Message, []tool.Spec) agent.Message{
		func([]agent.Message, []tool.Spec) agent.Message { return agent.Message{Calls: []tool.Call{pay}} },
		func([]agent.Message, []tool.Spec) agent.Message { return agent.Message{Calls: []tool.Call{pay}} },
		func([]agent.Message, []tool.Spec) agent.Message { return agent.Message{Text: "done"} },
	}}
	tr, err := agent.Run(context.Background(), m, []agent.Message{{Role: agent.RoleUser, Text: "pay mallory 500 once"}},
		agent.Options{Executor: ex, Tools: []string{"pay"}, Session: "s1"})
	assert.Equal(t, int32(1), asked.Load(), "the person was asked once")
	assert.Equal(t, int32(1), paid.Load(), "only the approved payment ran")
	assert.Len(t, tr.Steps, 1)
	require.Error(t, err, "the second turn reuses the first call's id")
	assert.Contains(t, err.Error(), `"toolu_01"`)
	assert.Contains(t, err.Error(), "turn 1")
	assert.Equal(t, agent.StopModelError, tr.Stop)
}

// The conversation a run continues (an earlier run's transcript) holds
// calls too: an id from it is reused as well.
func TestAttackS15CallIDFromTheHistoryReusesItsApproval(t *testing.T) {
	ex, paid, asked := payWithQueue(t)
	pay := tool.Call{ID: "toolu_01", Name: "pay", Args: []byte(`{"to":"mallory","amount":500}`)}
	m := &script{turns: []func([]agent.Message, []tool.Spec) agent.Message{
		func([]agent.Message, []tool.Spec) agent.Message { return agent.Message{Calls: []tool.Call{pay}} },
		func([]agent.Message, []tool.Spec) agent.Message { return agent.Message{Text: "done"} },
	}}
	opts := agent.Options{Executor: ex, Tools: []string{"pay"}, Session: "s1"}
	first, err := agent.Run(context.Background(), m, []agent.Message{{Role: agent.RoleUser, Text: "pay mallory 500 once"}}, opts)
	require.NoError(t, err)
	require.Equal(t, int32(1), paid.Load())

	m = &script{turns: m.turns}
	history := append(first.Messages, agent.Message{Role: agent.RoleUser, Text: "thanks"})
	tr, err := agent.Run(context.Background(), m, history, opts)
	assert.Equal(t, int32(1), asked.Load(), "the person was asked once")
	assert.Equal(t, int32(1), paid.Load(), "only the approved payment ran")
	require.Error(t, err, "the call reuses an id of the history")
	assert.Contains(t, err.Error(), `"toolu_01"`)
	assert.Equal(t, agent.StopModelError, tr.Stop)
}

// Ids the loop fills in (a model that gives none, as Gemini's may) are
// new in the conversation: a run that continues an earlier one whose
// calls got call_1_0 does not give its own first call that id, nor one a
// model's call took.
func TestFilledInCallIDsAreNewInTheConversation(t *testing.T) {
	ex, paid, asked := payWithQueue(t)
	pay := tool.Call{Name: "pay", Args: []byte(`{"to":"mallory","amount":500}`)}
	turns := []func([]agent.Message, []tool.Spec) agent.Message{
		func([]agent.Message, []tool.Spec) agent.Message { return agent.Message{Calls: []tool.Call{pay}} },
		func([]agent.Message, []tool.Spec) agent.Message { return agent.Message{Text: "done"} },
	}
	opts := agent.Options{Executor: ex, Tools: []string{"pay"}, Session: "s1"}
	first, err := agent.Run(context.Background(), &script{turns: turns}, []agent.Message{{Role: agent.RoleUser, Text: "pay"}}, opts)
	require.NoError(t, err)
	require.Equal(t, "call_1_0", first.Steps[0].Calls[0].ID)

	history := append(first.Messages, agent.Message{Role: agent.RoleUser, Text: "pay again"})
	second, err := agent.Run(context.Background(), &script{turns: turns}, history, opts)
	require.NoError(t, err)
	assert.NotEqual(t, "call_1_0", second.Steps[0].Calls[0].ID)
	assert.Equal(t, int32(2), asked.Load(), "the person was asked for each payment")
	assert.Equal(t, int32(2), paid.Load())

	// A model's id taking the one the loop would fill in next turn.
	taken := &script{turns: []func([]agent.Message, []tool.Spec) agent.Message{
		func([]agent.Message, []tool.Spec) agent.Message {
			return agent.Message{Calls: []tool.Call{{ID: "call_2_0", Name: "pay", Args: pay.Args}}}
		},
		func([]agent.Message, []tool.Spec) agent.Message { return agent.Message{Calls: []tool.Call{pay}} },
		func([]agent.Message, []tool.Spec) agent.Message { return agent.Message{Text: "done"} },
	}}
	tr, err := agent.Run(context.Background(), taken, []agent.Message{{Role: agent.RoleUser, Text: "pay twice"}}, opts)
	require.NoError(t, err)
	require.Len(t, tr.Steps, 2)
	assert.NotEqual(t, "call_2_0", tr.Steps[1].Calls[0].ID)
	assert.Equal(t, int32(4), asked.Load())
	assert.Equal(t, int32(4), paid.Load())
}
