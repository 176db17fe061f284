package wire_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent/wire"
)

// A codec's error for two calls with one id quoted the id as the payload
// had it: a MiB of id made a MiB of error, logged whole by whoever reads
// payloads with wire directly (the providers' adapters bound their errors
// since, the agent loop its own). The id is cut short.
func TestAttackS17RepeatedIDErrorIsBounded(t *testing.T) {
	id := strings.Repeat("i", 1<<20)
	for _, tc := range []struct {
		codec   wire.Codec
		payload string
	}{
		{wire.OpenAIChat, fmt.Sprintf(`{"tool_calls":[{"id":%q,"type":"function","function":{"name":"a","arguments":"{}"}},{"id":%q,"type":"function","function":{"name":"b","arguments":"{}"}}]}`, id, id)},
		{wire.OpenAIResponses, fmt.Sprintf(`[{"type":"function_call","call_id":%q,"name":"a","arguments":"{}"},{"type":"function_call","call_id":%q,"name":"b","arguments":"{}"}]`, id, id)},
		{wire.Anthropic, fmt.Sprintf(`{"content":[{"type":"tool_use","id":%q,"name":"a","input":{}},{"type":"tool_use","id":%q,"name":"b","input":{}}]}`, id, id)},
		{wire.Gemini, fmt.Sprintf(`{"parts":[{"functionCall":{"id":%q,"name":"a"}},{"functionCall":{"id":%q,"name":"b"}}]}`, id, id)},
		{wire.MCP, fmt.Sprintf(`[{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"a"}},{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"b"}}]`, id, id)},
	} {
		_, err := tc.codec.Calls([]byte(tc.payload))
		require.Error(t, err, tc.codec.Name())
		assert.Contains(t, err.Error(), "same id", tc.codec.Name())
		assert.Less(t, len(err.Error()), 1<<10, tc.codec.Name())
	}
}
