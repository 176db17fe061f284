package wire_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent/wire"
)

// A <tool_call> block that is not JSON is read for its "name": one
// naming "" became a call with no name (found by FuzzCodecCalls, whose
// contract is that every call read has one), where a JSON block with
// "name": "" is an error. It is the same error now.
func TestAttackS30ReviewPromptBlockNamingNothing(t *testing.T) {
	for _, content := range []string{
		`<tool_call>0"name":""</tool_call>`,
		`<tool_call>{"name": "", "arguments": {</tool_call>`,
		`<tool_call>{"name": "", "arguments": {}}</tool_call>`,
	} {
		calls, err := wire.Prompt.Calls([]byte(`{"content":` + quote(content) + `}`))
		require.Error(t, err, content)
		assert.Empty(t, calls, content)
	}
	calls, err := wire.Prompt.Calls([]byte(`{"content":` + quote(`<tool_call>{"name": "add", "arguments": {</tool_call>`) + `}`))
	require.NoError(t, err)
	require.Len(t, calls, 1)
	assert.Equal(t, "add", calls[0].Name, "a block that is not JSON and names a tool is still its call")
}

// quote is s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
