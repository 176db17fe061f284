package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call's id is the model's text, and nothing bounded it: the executor's
// history (1,000 records by default, kept across runs), the audit trail,
// the approval queue, events and the transcript keep it with every call,
// a refused one too. A hostile model (or endpoint) gave each of its 64
// calls a turn an id of half a MiB: 32 MiB a turn held by the history
// after the run, and written to every record. An id longer than
// agent.MaxCallIDBytes is replaced by one the run makes, as a missing id
// is (the turn is then rebuilt from its calls, as for an id an earlier
// call had).
func TestAttackS17LongCallIDIsReplaced(t *testing.T) {
	long := strings.Repeat("x", 512<<10)
	ex := newExec()
	raw := json.RawMessage(`{"role":"assistant","tool_calls":"the provider's own payload naming the long ids"}`)
	model := &script{turns: turns(
		agent.Message{Role: agent.RoleAssistant, Raw: raw, RawFormat: "openai_chat", Calls: []tool.Call{
			{ID: long + "1", Name: "add", Args: json.RawMessage(`{"a":1,"b":2}`)},
			{ID: long + "2", Name: "no_such_tool", Args: json.RawMessage(`{}`)},
			{ID: "call_ok", Name: "add", Args: json.RawMessage(`{"a":2,"b":2}`)},
		}},
		agent.Message{Role: agent.RoleAssistant, Text: "done"},
	)}
	tr, err := agent.Run(context.Background(), model, []agent.Message{{Role: agent.RoleUser, Text: "add"}},
		agent.Options{Executor: ex, Tools: []string{"add"}})
	require.NoError(t, err)
	require.Len(t, tr.Steps, 1)
	calls, results := tr.Steps[0].Calls, tr.Steps[0].Results
	require.Len(t, calls, 3)
	for i, c := range calls[:2] {
		assert.LessOrEqual(t, len(c.ID), agent.MaxCallIDBytes, "call #%d keeps an id of %d bytes", i, len(c.ID))
		assert.Equal(t, fmt.Sprintf("call_1_%d_", i), c.ID[:len("call_1_0_")], "call #%d", i)
		assert.Equal(t, c.ID, results[i].CallID, "call #%d: its result names the id it ran as", i)
	}
	assert.Equal(t, "call_ok", calls[2].ID, "a short id is kept")
	assert.NotEqual(t, calls[0].ID, calls[1].ID)
	// The provider's payload names the ids the model gave: the turn goes
	// back rebuilt from its calls.
	assert.Nil(t, tr.Messages[1].Raw)
	for _, r := range ex.History(executor.HistoryQuery{}) {
		assert.LessOrEqual(t, len(r.CallID), agent.MaxCallIDBytes, "the history keeps an id of %d bytes", len(r.CallID))
	}
}
