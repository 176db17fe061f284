package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func weatherEx(t *testing.T) *executor.Executor {
	t.Helper()
	reg := registry.New()
	reg.MustRegister(tool.Func("get_weather", "Weather for a city", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (map[string]any, error) {
		return map[string]any{"city": in.City, "temp": 21}, nil
	}))
	return executor.MustNew(reg)
}

// A model without native tool calling runs tools through the loop: it
// reads the tools in its system message, calls one in a <tool_call> block,
// reads the result in a <tool_response> block, and answers.
func TestPromptToolsRunsTheLoop(t *testing.T) {
	var seen [][]agent.ChatMessage
	model := agent.PromptTools(func(_ context.Context, msgs []agent.ChatMessage) (string, error) {
		seen = append(seen, msgs)
		if len(seen) == 1 {
			return "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Lisbon\"}}\n</tool_call>", nil
		}
		return "It is 21 °C in Lisbon.", nil
	})
	tr, err := agent.Run(context.Background(), model, []agent.Message{
		{Role: agent.RoleSystem, Text: "You answer weather questions."},
		{Role: agent.RoleUser, Text: "Weather in Lisbon?"},
	}, agent.Options{Executor: weatherEx(t), Tools: []string{"get_weather"}})
	require.NoError(t, err)
	assert.Equal(t, "It is 21 °C in Lisbon.", tr.Final)
	require.Len(t, tr.Steps, 1)
	require.Len(t, tr.Steps[0].Results, 1)
	assert.True(t, tr.Steps[0].Results[0].OK())

	require.Len(t, seen, 2)
	first := seen[0]
	require.Len(t, first, 2)
	assert.Equal(t, "system", first[0].Role)
	assert.True(t, strings.HasPrefix(first[0].Content, "You answer weather questions.\n\nYou can call tools."), first[0].Content)
	assert.Contains(t, first[0].Content, `{"name":"get_weather","description":"Weather for a city","parameters":`)
	assert.Equal(t, agent.ChatMessage{Role: "user", Content: "Weather in Lisbon?"}, first[1])

	second := seen[1]
	require.Len(t, second, 4)
	assert.Equal(t, "assistant", second[2].Role)
	assert.Contains(t, second[2].Content, "<tool_call>", "the model sees the call it made")
	assert.Equal(t, agent.ChatMessage{Role: "user", Content: "<tool_response name=\"get_weather\">\n{\"city\":\"Lisbon\",\"temp\":21}\n</tool_response>"}, second[3])
}

// Without a system message, one is added for the tools; a reply whose
// block names no tool ends the run with an error that says so.
func TestPromptToolsNoSystemAndBadBlock(t *testing.T) {
	var seen []agent.ChatMessage
	model := agent.PromptTools(func(_ context.Context, msgs []agent.ChatMessage) (string, error) {
		seen = msgs
		return `<tool_call>{"arguments": {"city": "Lisbon"}}</tool_call>`, nil
	})
	_, err := agent.Run(context.Background(), model, []agent.Message{{Role: agent.RoleUser, Text: "Weather?"}},
		agent.Options{Executor: weatherEx(t), Tools: []string{"get_weather"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "has no name")
	require.Len(t, seen, 2)
	assert.Equal(t, "system", seen[0].Role)
	assert.True(t, strings.HasPrefix(seen[0].Content, "You can call tools."))
}
