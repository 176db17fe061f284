package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An id of the shape wire.Gemini makes for a call that came without one
// (NAME#N) gets the run's tag added, but the turn's Raw was kept: right
// for Gemini, whose Raw names no id (the results go back by name and
// order), wrong for a provider whose Raw names the ids. An OpenAI-
// compatible endpoint whose call to add had the id "add#0" got its turn
// back naming "add#0" and the result naming "add#0_TAG": the provider
// refuses the request (a tool message answering no call), after the
// calls ran. The turn of another format is rebuilt from its calls, as for
// every other id the run renames.
func TestAttackS29HashIDOfAnotherFormatRebuildsTheTurn(t *testing.T) {
	raw := json.RawMessage(`{"role":"assistant","tool_calls":[{"id":"add#0","type":"function","function":{"name":"add","arguments":"{\"a\":1,\"b\":2}"}}]}`)
	for format, keepsRaw := range map[string]bool{"openai_chat": false, "anthropic": false, "gemini": true} {
		t.Run(format, func(t *testing.T) {
			model := &script{turns: turns(
				agent.Message{Role: agent.RoleAssistant, Raw: raw, RawFormat: format, Calls: []tool.Call{
					{ID: "add#0", Name: "add", Args: json.RawMessage(`{"a":1,"b":2}`)},
				}},
				agent.Message{Role: agent.RoleAssistant, Text: "done"},
			)}
			tr, err := agent.Run(context.Background(), model, []agent.Message{{Role: agent.RoleUser, Text: "add"}},
				agent.Options{Executor: newExec(), Tools: []string{"add"}})
			require.NoError(t, err)
			id := tr.Steps[0].Calls[0].ID
			assert.True(t, strings.HasPrefix(id, "add#0_"), "the id gets the run's tag: %q", id)
			assert.Equal(t, id, tr.Steps[0].Results[0].CallID)
			turn := tr.Messages[1]
			if keepsRaw {
				assert.Equal(t, string(raw), string(turn.Raw), "Gemini's turn goes back as it came (its thought signatures)")
				return
			}
			if turn.Raw != nil {
				assert.Contains(t, string(turn.Raw), id, "the turn sent back names an id no result answers")
			}
		})
	}
}
