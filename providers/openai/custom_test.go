package openai_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A custom (free-text) tool call beside a function call: the function call
// runs, the custom call gets a tool message the model can read, and the
// assistant turn goes back with its tool_calls exactly (the custom call
// stays custom).
func TestCustomToolCallKeepsTheTurn(t *testing.T) {
	model, rp := newModel(t, step{200, "custom_tool_call.json"}, step{200, "turn2_answer.json"})
	tr, err := agent.Run(context.Background(), model, conversation(), agent.Options{Executor: weatherExecutor(), Tools: []string{"get_weather"}})
	require.NoError(t, err)
	require.Len(t, tr.Steps, 1)
	res := tr.Steps[0].Results
	require.Len(t, res, 2)
	assert.Equal(t, tool.CodeNotFound, res[0].Error.Code, "apply_patch is not a declared tool")
	assert.True(t, res[1].OK())

	reqs := rp.requests()
	require.Len(t, reqs, 2)
	msgs := reqs[1]["messages"].([]any)
	assert.Equal(t, "custom", path(t, msgs, 2, "tool_calls", 0, "type"))
	assert.Equal(t, "*** Begin Patch\n*** End Patch", path(t, msgs, 2, "tool_calls", 0, "custom", "input"))
	assert.Equal(t, "call_Fn2", path(t, msgs, 2, "tool_calls", 1, "id"))
	assert.Equal(t, "call_Cu5tOm1", path(t, msgs, 3, "tool_call_id"))
	assert.Equal(t, "call_Fn2", path(t, msgs, 4, "tool_call_id"))
}
