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

func turns(msgs ...agent.Message) []func([]agent.Message, []tool.Spec) agent.Message {
	var out []func([]agent.Message, []tool.Spec) agent.Message
	for _, m := range msgs {
		out = append(out, func([]agent.Message, []tool.Spec) agent.Message { return m })
	}
	return out
}

var payMallory = []byte(`{"to":"mallory","amount":500}`)

// A person approves one payment; the model makes the same call again in a
// later turn under the id of the approved one. The approval queue takes a
// call id (with its tool, arguments and whom it acts for) as "the same
// call asked again", whose decision stands (a job retried), so the second
// payment ran with nobody asked: the model reused an approval it was given
// for one call. The loop now runs every call under an id new in the
// conversation: the second gets "toolu_01_2", and the person is asked.
func TestAttackS15CallIDReusedInALaterTurnReusesItsApproval(t *testing.T) {
	ex, paid, asked := payWithQueue(t)
	pay := agent.Message{Calls: []tool.Call{{ID: "toolu_01", Name: "pay", Args: payMallory}}}
	tr, err := agent.Run(context.Background(), &script{turns: turns(pay, pay, agent.Message{Text: "done"})},
		[]agent.Message{{Role: agent.RoleUser, Text: "pay mallory 500 twice"}},
		agent.Options{Executor: ex, Tools: []string{"pay"}, Session: "s1"})
	require.NoError(t, err)
	assert.Equal(t, int32(2), paid.Load())
	assert.Equal(t, int32(2), asked.Load(), "the person is asked for each payment")
	require.Len(t, tr.Steps, 2)
	assert.Equal(t, "toolu_01", tr.Steps[0].Calls[0].ID)
	assert.Equal(t, "toolu_01_2", tr.Steps[1].Calls[0].ID)
	assert.Equal(t, "toolu_01_2", tr.Steps[1].Results[0].CallID)
}

// The conversation a run continues (an earlier run's transcript) holds
// calls too: an id from it is not reused either.
func TestAttackS15CallIDFromTheHistoryReusesItsApproval(t *testing.T) {
	ex, paid, asked := payWithQueue(t)
	pay := agent.Message{Calls: []tool.Call{{ID: "toolu_01", Name: "pay", Args: payMallory}}}
	opts := agent.Options{Executor: ex, Tools: []string{"pay"}, Session: "s1"}
	first, err := agent.Run(context.Background(), &script{turns: turns(pay, agent.Message{Text: "done"})},
		[]agent.Message{{Role: agent.RoleUser, Text: "pay mallory 500"}}, opts)
	require.NoError(t, err)

	history := append(first.Messages, agent.Message{Role: agent.RoleUser, Text: "and again"})
	tr, err := agent.Run(context.Background(), &script{turns: turns(pay, agent.Message{Text: "done"})}, history, opts)
	require.NoError(t, err)
	assert.Equal(t, int32(2), paid.Load())
	assert.Equal(t, int32(2), asked.Load(), "the person is asked for each payment")
	assert.Equal(t, "toolu_01_2", tr.Steps[0].Calls[0].ID)
}

// A model whose calls carry no id (PromptTools' text models) or the same
// one in every turn (Gemini's, read as "pay#0") reused an approval with
// no hostile id at all: the loop numbered calls call_TURN_N afresh in each
// run, so a run continuing a conversation, or a new conversation in the
// same session, gave a repeated payment the approved one's call_1_0; and
// Gemini's second call of pay was "pay#0" again.
func TestAttackS15RepeatedCallsOfModelsWithoutIDs(t *testing.T) {
	opts := func(ex *executor.Executor) agent.Options {
		return agent.Options{Executor: ex, Tools: []string{"pay"}, Session: "s1"}
	}
	t.Run("no ids, a continued conversation", func(t *testing.T) {
		ex, paid, asked := payWithQueue(t)
		pay := agent.Message{Calls: []tool.Call{{Name: "pay", Args: payMallory}}}
		first, err := agent.Run(context.Background(), &script{turns: turns(pay, agent.Message{Text: "done"})},
			[]agent.Message{{Role: agent.RoleUser, Text: "pay"}}, opts(ex))
		require.NoError(t, err)
		history := append(first.Messages, agent.Message{Role: agent.RoleUser, Text: "pay again"})
		second, err := agent.Run(context.Background(), &script{turns: turns(pay, agent.Message{Text: "done"})}, history, opts(ex))
		require.NoError(t, err)
		assert.Equal(t, int32(2), paid.Load())
		assert.Equal(t, int32(2), asked.Load(), "the person is asked for each payment")
		assert.NotEqual(t, first.Steps[0].Calls[0].ID, second.Steps[0].Calls[0].ID)
	})
	t.Run("no ids, a new conversation in the session", func(t *testing.T) {
		ex, paid, asked := payWithQueue(t)
		pay := agent.Message{Calls: []tool.Call{{Name: "pay", Args: payMallory}}}
		for range 2 {
			_, err := agent.Run(context.Background(), &script{turns: turns(pay, agent.Message{Text: "done"})},
				[]agent.Message{{Role: agent.RoleUser, Text: "pay"}}, opts(ex))
			require.NoError(t, err)
		}
		assert.Equal(t, int32(2), paid.Load())
		assert.Equal(t, int32(2), asked.Load(), "the person is asked for each payment")
	})
	t.Run("Gemini's ids, history cut to a window", func(t *testing.T) {
		// A long conversation sent with its last messages only: the
		// earlier pay#0 is no longer in the history the run is given.
		ex, paid, asked := payWithQueue(t)
		pay := agent.Message{Calls: []tool.Call{{ID: "pay#0", Name: "pay", Args: payMallory}}}
		for range 2 {
			_, err := agent.Run(context.Background(), &script{turns: turns(pay, agent.Message{Text: "done"})},
				[]agent.Message{{Role: agent.RoleUser, Text: "pay"}}, opts(ex))
			require.NoError(t, err)
		}
		assert.Equal(t, int32(2), paid.Load())
		assert.Equal(t, int32(2), asked.Load(), "the person is asked for each payment")
	})
	t.Run("the same id in every turn (Gemini's)", func(t *testing.T) {
		ex, paid, asked := payWithQueue(t)
		pay := agent.Message{Calls: []tool.Call{{ID: "pay#0", Name: "pay", Args: payMallory}}}
		tr, err := agent.Run(context.Background(), &script{turns: turns(pay, pay, pay, agent.Message{Text: "done"})},
			[]agent.Message{{Role: agent.RoleUser, Text: "pay three times"}}, opts(ex))
		require.NoError(t, err, "a repeated id is no model error: Gemini's calls have none")
		assert.Equal(t, int32(3), paid.Load())
		assert.Equal(t, int32(3), asked.Load(), "the person is asked for each payment")
		require.Len(t, tr.Steps, 3)
		first := tr.Steps[0].Calls[0].ID
		assert.Regexp(t, `^pay#0_[0-9a-f]{8}$`, first, "the run's tag is added")
		assert.Equal(t, []string{first + "_2", first + "_3"}, []string{tr.Steps[1].Calls[0].ID, tr.Steps[2].Calls[0].ID})
	})
}

// An id the loop gives never takes one of the conversation's: not a
// model's of the same turn, nor the suffixed form a model took first.
func TestFilledInCallIDsAreNewInTheConversation(t *testing.T) {
	ex, paid, _ := payWithQueue(t)
	m := &script{turns: turns(
		agent.Message{Calls: []tool.Call{{ID: "x_2", Name: "pay", Args: payMallory}, {ID: "x", Name: "pay", Args: payMallory}}},
		agent.Message{Calls: []tool.Call{{ID: "x", Name: "pay", Args: payMallory}, {Name: "pay", Args: payMallory}, {ID: "x_3", Name: "pay", Args: payMallory}}},
		agent.Message{Text: "done"},
	)}
	tr, err := agent.Run(context.Background(), m, []agent.Message{{Role: agent.RoleUser, Text: "pay"}},
		agent.Options{Executor: ex, Tools: []string{"pay"}, Session: "s1"})
	require.NoError(t, err)
	require.Len(t, tr.Steps, 2)
	ids := map[string]bool{}
	for _, s := range tr.Steps {
		for _, c := range s.Calls {
			assert.False(t, ids[c.ID], "id %q given twice", c.ID)
			ids[c.ID] = true
		}
	}
	assert.Equal(t, "x_4", tr.Steps[1].Calls[0].ID, "x, x_2 and x_3 are taken")
	assert.Regexp(t, `^call_2_1_[0-9a-f]{8}$`, tr.Steps[1].Calls[1].ID)
	assert.Equal(t, int32(5), paid.Load())
}
