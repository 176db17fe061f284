package wire_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent/wire"
)

// A content under a Gemini response's candidates is read as a content: a
// "candidates" field inside it is not a response again. Read again, a
// hostile answer ran calls the transcript does not show (parts nested in a
// content that has parts of its own), and each level of nesting parsed
// the rest of the payload again.
func TestGeminiNestedCandidates(t *testing.T) {
	payload := []byte(`{"candidates":[{"content":{"role":"model",
		"candidates":[{"content":{"parts":[{"functionCall":{"id":"hidden","name":"delete_all","args":{}}}]}}],
		"parts":[{"functionCall":{"id":"shown","name":"search","args":{}}}]}}]}`)
	calls, err := wire.Gemini.Calls(payload)
	require.NoError(t, err)
	require.Len(t, calls, 1)
	assert.Equal(t, "shown", calls[0].ID)
	assert.Equal(t, "search", calls[0].Name)

	deep := []byte(strings.Repeat(`{"candidates":[{"content":`, 3000) + `{"parts":[]}` + strings.Repeat(`}]}`, 3000))
	start := time.Now()
	calls, err = wire.Gemini.Calls(deep)
	require.NoError(t, err)
	assert.Empty(t, calls)
	t.Logf("%d KB nested 3000 deep: %v", len(deep)>>10, time.Since(start))
}

// Two calls of one turn with the same id cannot be told apart: their
// results carry the same id (the provider refuses the next request, after
// both ran), and the audit trail, history and approvals see one call id
// for two calls. Each codec refuses such a turn, as it refuses a call with
// no id.
func TestDuplicateCallIDs(t *testing.T) {
	for _, tc := range []struct {
		codec   wire.Codec
		payload string
	}{
		{wire.OpenAIChat, `{"role":"assistant","tool_calls":[
			{"id":"c1","type":"function","function":{"name":"pay","arguments":"{\"amount\":100}"}},
			{"id":"c1","type":"function","function":{"name":"pay","arguments":"{\"amount\":100}"}}]}`},
		{wire.OpenAIResponses, `{"output":[
			{"type":"function_call","call_id":"c1","name":"pay","arguments":"{}"},
			{"type":"function_call","call_id":"c1","name":"refund","arguments":"{}"}]}`},
		{wire.Anthropic, `{"role":"assistant","content":[
			{"type":"tool_use","id":"toolu_1","name":"pay","input":{}},
			{"type":"text","text":"again"},
			{"type":"tool_use","id":"toolu_1","name":"pay","input":{}}]}`},
		{wire.Gemini, `{"role":"model","parts":[
			{"functionCall":{"id":"g1","name":"pay","args":{}}},
			{"functionCall":{"id":"g1","name":"pay","args":{}}}]}`},
		{wire.Gemini, `{"role":"model","parts":[
			{"functionCall":{"id":"pay#1","name":"pay","args":{}}},
			{"functionCall":{"name":"pay","args":{}}}]}`},
		{wire.MCP, `[{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"pay","arguments":{}}},
			{"jsonrpc":"2.0","id":"7","method":"tools/call","params":{"name":"pay","arguments":{}}}]`},
	} {
		calls, err := tc.codec.Calls([]byte(tc.payload))
		require.Error(t, err, "%s: %v", tc.codec.Name(), calls)
		assert.Contains(t, err.Error(), "same id", tc.codec.Name())
		assert.Nil(t, calls, tc.codec.Name())
	}
	// Distinct ids, and Gemini's ids made up for calls without one, pass.
	calls, err := wire.Gemini.Calls([]byte(`{"parts":[{"functionCall":{"name":"pay","args":{}}},{"functionCall":{"name":"pay","args":{}}}]}`))
	require.NoError(t, err)
	require.Len(t, calls, 2)
	assert.NotEqual(t, calls[0].ID, calls[1].ID)
}
