package openai_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/providers/openai"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The Responses API tool loop with reasoning: the second request carries
// the first response's output items exactly (the reasoning item with its
// encrypted content, both function calls), then one function_call_output
// per call.
func TestResponsesToolLoopSendsItemsBackExactly(t *testing.T) {
	client, rp := newClient(t, step{200, "responses_turn1.json"}, step{200, "responses_turn2.json"})
	model := openai.NewResponses(client, "gpt-5", openai.WithResponsesParams(func(p *responses.ResponseNewParams) {
		p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
	}))
	tr, err := agent.Run(context.Background(), model, conversation(), agent.Options{Executor: weatherExecutor(), Tools: []string{"get_weather"}})
	require.NoError(t, err)
	assert.Equal(t, agent.StopAnswered, tr.Stop)
	assert.Equal(t, "Lisbon is sunny at 21 °C. There is no weather station for Atlantis.", tr.Final)
	require.Len(t, tr.Steps, 1)
	require.Len(t, tr.Steps[0].Calls, 2)
	assert.True(t, tr.Steps[0].Results[0].OK(), "%v", tr.Steps[0].Results[0].Error)
	assert.Equal(t, tool.CodeNotFound, tr.Steps[0].Results[1].Error.Code, "null for the optional unit means absent")

	reqs := rp.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "You are a weather assistant.", reqs[0]["instructions"])
	assert.Equal(t, true, path(t, reqs[0], "tools", 0, "strict"))
	assert.Equal(t, "function", path(t, reqs[0], "tools", 0, "type"))

	data, err := os.ReadFile(filepath.Join("testdata", "responses_turn1.json"))
	require.NoError(t, err)
	var recorded struct {
		Output []any `json:"output"`
	}
	require.NoError(t, json.Unmarshal(data, &recorded))
	input := reqs[1]["input"].([]any)
	require.Len(t, input, 1+3+2)
	assert.Equal(t, recorded.Output, input[1:4], "output items go back exactly")
	assert.Equal(t, "function_call_output", path(t, input, 4, "type"))
	assert.Equal(t, "call_Tn4gQ6Xc2Zb3yW8vRk1mLp0s", path(t, input, 4, "call_id"))
	assert.Equal(t, "call_Hq7kV2Jp9Ys4Xc1Bn6Mw3Zr8", path(t, input, 5, "call_id"))

	// The items decode into the SDK's own types.
	raw, err := json.Marshal(input)
	require.NoError(t, err)
	var items []responses.ResponseInputItemUnion
	require.NoError(t, json.Unmarshal(raw, &items))
	assert.Equal(t, "reasoning", items[1].Type)
	assert.NotEmpty(t, items[1].EncryptedContent)
	assert.Equal(t, "get_weather", items[2].Name)
}

// Item types the adapter does not model are kept and sent back; the
// function calls beside them still run.
func TestResponsesUnknownItemsPassThrough(t *testing.T) {
	client, _ := newClient(t)
	model := openai.NewResponses(client, "gpt-5")
	raw := json.RawMessage(`[{"type":"compaction","id":"cmp_1","encrypted_content":"xyz"},{"type":"shell_call","call_id":"sh_1","action":{"commands":["ls"]},"status":"completed"},{"type":"function_call","call_id":"c1","name":"get_weather","arguments":"{}"}]`)
	params, err := model.Request([]agent.Message{
		{Role: agent.RoleUser, Text: "hi"},
		{Role: agent.RoleAssistant, Raw: raw, RawFormat: openai.ResponsesFormat, Calls: []tool.Call{{ID: "c1", Name: "get_weather"}}},
	}, nil)
	require.NoError(t, err)
	body, err := json.Marshal(params)
	require.NoError(t, err)
	var got struct {
		Input []json.RawMessage `json:"input"`
	}
	require.NoError(t, json.Unmarshal(body, &got))
	require.Len(t, got.Input, 4)
	var want []json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &want))
	for i := range want {
		assert.JSONEq(t, string(want[i]), string(got.Input[i+1]))
	}
}
