package wire_test

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/tool"
)

// textAlloc is what wire.Text(r) allocates.
func textAlloc(r *tool.Result) (string, uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	text := wire.Text(r)
	runtime.ReadMemStats(&after)
	return text, after.TotalAlloc - before.TotalAlloc
}

// Text decodes a small structured output to tell whether a text block
// repeats it, and decoded each text block of up to 4x MaxResultText to
// compare, however many: a tool's (an MCP server's) result of output
// {"a":1} and 64 text blocks of 64 KiB of [{},{},...] (4 MiB) built
// some 1,400,000 maps, again at each render of the conversation's
// results. The blocks decoded for a result are bounded (4x
// MaxResultText in all); the others are compared as compact JSON.
func TestAttackS30ReviewTextBlocksAreNotDecodedForNothing(t *testing.T) {
	block := "[" + strings.Repeat("{},", (64<<10)/3-1) + "{}]"
	var content []tool.Content
	for range 64 {
		content = append(content, tool.Content{Type: tool.ContentText, Text: block})
	}
	_, baseline := textAlloc(&tool.Result{Content: content}) // no output: nothing to compare
	text, alloc := textAlloc(&tool.Result{Output: json.RawMessage(`{"a":1}`), Content: content})
	t.Logf("result %d bytes, allocated %d bytes with output, %d without", 64*len(block), alloc, baseline)
	assert.Less(t, alloc, baseline+16<<20, "comparing the blocks with the output allocated more than 16 MB")
	assert.True(t, strings.HasPrefix(text, `{"a":1}`))

	// A repeat spelt otherwise is still left out.
	r := &tool.Result{Output: json.RawMessage(`{"a":1,"b":[1,2]}`), Content: []tool.Content{{Type: tool.ContentText, Text: "{\n  \"b\": [1, 2],\n  \"a\": 1.0\n}"}}}
	assert.Equal(t, `{"a":1,"b":[1,2]}`, wire.Text(r))
}
