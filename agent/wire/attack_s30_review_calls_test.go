package wire_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent/wire"
)

// manyCalls is a payload of n calls of one codec, each block a few
// dozen bytes.
func manyCalls(codec wire.Codec, n int) []byte {
	var b strings.Builder
	frame := map[string][2]string{
		"anthropic":        {`{"content":[`, `]}`},
		"openai_chat":      {`{"tool_calls":[`, `]}`},
		"openai_responses": {`[`, `]`},
		"gemini":           {`{"parts":[`, `]}`},
		"mcp":              {`[`, `]`},
	}[codec.Name()]
	b.WriteString(frame[0])
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		switch codec.Name() {
		case "anthropic":
			fmt.Fprintf(&b, `{"type":"tool_use","id":"%d","name":"a"}`, i)
		case "openai_chat":
			fmt.Fprintf(&b, `{"id":"%d","function":{"name":"a"}}`, i)
		case "openai_responses":
			fmt.Fprintf(&b, `{"type":"function_call","call_id":"%d","name":"a"}`, i)
		case "gemini":
			b.WriteString(`{"functionCall":{"name":"a"}}`)
		case "mcp":
			fmt.Fprintf(&b, `{"id":%d,"method":"tools/call","params":{"name":"a"}}`, i)
		}
	}
	b.WriteString(frame[1])
	return []byte(b.String())
}

// A codec read every call of a payload, however many: a call is a
// tool.Call of some 300 bytes (and for Gemini an id wire makes) for a
// block of 30 to 50 bytes, so a hostile endpoint's (or MCP client's)
// MiB of tiny calls allocated 31x to 56x the payload before anything
// could refuse the turn (agent.Run runs 64 calls a turn by default).
// A payload of more than wire.MaxCalls calls is an error, found before
// the calls past it are read; one of MaxCalls is read whole.
func TestAttackS30ReviewManyCallsAreRefused(t *testing.T) {
	for _, codec := range []wire.Codec{wire.Anthropic, wire.OpenAIChat, wire.OpenAIResponses, wire.Gemini, wire.MCP} {
		calls, err := codec.Calls(manyCalls(codec, wire.MaxCalls))
		require.NoError(t, err, codec.Name())
		assert.Len(t, calls, wire.MaxCalls, codec.Name())

		payload := manyCalls(codec, 1<<15)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		calls, err = codec.Calls(payload)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: payload %d bytes, %d calls, allocated %d bytes (%.1fx)", codec.Name(), len(payload), len(calls), alloc, float64(alloc)/float64(len(payload)))
		if assert.Error(t, err, codec.Name()) {
			assert.Contains(t, err.Error(), fmt.Sprintf("more than %d calls", wire.MaxCalls), codec.Name())
		}
		assert.Less(t, alloc, uint64(3*len(payload)), "%s: reading the calls allocated more than 3x the payload", codec.Name())
	}
}
