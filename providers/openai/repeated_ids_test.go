package openai_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
)

// An OpenAI-compatible server that repeats its call ids across turns (a
// local model's server numbering calls afresh each turn): the agent loop
// runs a repeated id under a new one, so that an approval given to the
// earlier call is not taken for this one, and the turn it sends back must
// carry the ids its tool messages answer. It sent the server's own turn
// back unchanged, with the old ids, so the server could match no result to
// its call.
func TestRepeatedCallIDsAreSentBackAsRun(t *testing.T) {
	model, rp := newModel(t, step{200, "turn1_tool_calls.json"}, step{200, "turn1_tool_calls.json"}, step{200, "turn2_answer.json"})
	tr, err := agent.Run(context.Background(), model, conversation(), agent.Options{
		Executor: weatherExecutor(),
		Tools:    []string{"get_weather"},
	})
	require.NoError(t, err)
	require.Equal(t, agent.StopAnswered, tr.Stop)
	require.Len(t, tr.Steps, 2)
	assert.NotEqual(t, tr.Steps[0].Calls[0].ID, tr.Steps[1].Calls[0].ID, "the repeated id runs under a new one")

	reqs := rp.requests()
	require.Len(t, reqs, 3)
	msgs, ok := reqs[2]["messages"].([]any)
	require.True(t, ok)
	// Every tool message answers a call of the assistant turn before it.
	var offered map[string]bool
	answered := 0
	for i := range msgs {
		switch path(t, msgs, i, "role") {
		case "assistant":
			offered = map[string]bool{}
			calls, _ := path(t, msgs, i, "tool_calls").([]any)
			for j := range calls {
				offered[path(t, calls, j, "id").(string)] = true
			}
		case "tool":
			id := path(t, msgs, i, "tool_call_id").(string)
			assert.True(t, offered[id], "message %d answers call %q, which the assistant turn before it does not make (it makes %v)", i, id, offered)
			answered++
		}
	}
	assert.Equal(t, 4, answered)
}
