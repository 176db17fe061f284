package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A model's call names its tool in text of its own: a name that differs
// from a tool's by case, an invisible character, a confusable letter or
// blanks is another name, and runs nothing, even where the tool it looks
// like is declared and offered (the loop and the registry match names
// exactly). Each gets not_found and reaches the observers; only the
// exact name runs.
func TestAttackS29LookalikeToolNamesRunNothing(t *testing.T) {
	names := []string{
		"Add", "ADD", "add\u200b", "\u200badd", "add\u00ad", "a\u200ddd", "ａdd", "аdd", // Cyrillic а
		" add", "add ", "add\x00", "add\n", "add#0", "add.", "functions.add", "default_api:add",
	}
	var calls []tool.Call
	for _, n := range names {
		calls = append(calls, tool.Call{Name: n, Args: json.RawMessage(`{"a":1,"b":2}`)})
	}
	calls = append(calls, tool.Call{Name: "add", Args: json.RawMessage(`{"a":1,"b":2}`)})
	rec := &refusalRecorder{}
	model := &script{turns: turns(agent.Message{Calls: calls}, agent.Message{Text: "done"})}
	tr, err := agent.Run(context.Background(), model, nil, agent.Options{Executor: newExec(rec), Tools: []string{"add"}})
	require.NoError(t, err)
	results := tr.Steps[0].Results
	require.Len(t, results, len(names)+1)
	for i, n := range names {
		require.NotNil(t, results[i].Error, "%q ran", n)
		assert.Equal(t, tool.CodeNotFound, results[i].Error.Code, "%q", n)
	}
	assert.Nil(t, results[len(names)].Error, "the exact name runs")
	assert.Len(t, rec.refused, len(names), "each lookalike reaches the observers")
	require.Len(t, rec.calls, 1, "only the exact name reached the chain")
	assert.Equal(t, "add", rec.calls[0].Name)
}
