package wire_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/agent/wire"
)

// A codec read an array of a payload (Anthropic's content blocks, OpenAI's
// tool_calls and output items, Gemini's parts and candidates, an MCP
// batch) into a slice of every element first, decoded or raw, and only
// then looked at them: a hostile endpoint's array of a MiB of "{}" cost
// a slice element of 24 to 96 bytes for each 3 bytes, and twice that as
// the slice grew, before the first element was refused or skipped. The
// elements are read one at a time: a codec allocates about what the
// payload holds (a copy of the array, and each element's strings:
// "text" of 16 bytes is 16 more under -race), at most 3x, where it
// allocated 24x to 243x.
func TestAttackS30ReviewCodecArraysCostNoMoreThanThePayload(t *testing.T) {
	n := 1 << 18
	empties := "[" + strings.Repeat("{},", n) + "{}]"
	texts := "[" + strings.Repeat(`{"type":"text"},`, n) + `{"type":"text"}]`
	for _, tc := range []struct {
		name    string
		codec   wire.Codec
		payload string
	}{
		{"anthropic blocks", wire.Anthropic, `{"content":` + empties + `}`},
		{"anthropic text blocks", wire.Anthropic, `{"content":` + texts + `}`},
		{"openai chat tool_calls", wire.OpenAIChat, `{"tool_calls":` + empties + `}`},
		{"openai chat choices", wire.OpenAIChat, `{"choices":` + empties + `}`},
		{"openai responses items", wire.OpenAIResponses, empties},
		{"openai responses output", wire.OpenAIResponses, `{"output":` + empties + `}`},
		{"openai responses message items", wire.OpenAIResponses, strings.ReplaceAll(texts, "text", "message")},
		{"gemini parts", wire.Gemini, `{"parts":` + empties + `}`},
		{"gemini candidates", wire.Gemini, `{"candidates":` + empties + `}`},
		{"mcp batch", wire.MCP, empties},
		{"prompt", wire.Prompt, `{"content":"` + strings.Repeat("<tool_call>{}</tool_call>", 1<<16) + `"}`},
	} {
		payload := []byte(tc.payload)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := tc.codec.Calls(payload)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: payload %d bytes, allocated %d bytes (%.1fx), err %v", tc.name, len(payload), alloc, float64(alloc)/float64(len(payload)), err != nil)
		assert.Less(t, alloc, uint64(3*len(payload)), "%s: decoding allocated more than 3x the payload", tc.name)
	}
}
