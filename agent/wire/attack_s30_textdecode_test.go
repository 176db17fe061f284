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

// Text decoded a result's whole structured output into Go values, to
// tell whether a text block repeats it: a tool's (an MCP server's) output
// of a MiB of "{}" became hundreds of thousands of maps, for a text the
// model reads cut to MaxResultText anyway, and again each time a turn
// renders the conversation's results. Large output is compared as
// compact JSON, without building values.
func TestAttackS30TextDecodesNoLargeOutput(t *testing.T) {
	out := json.RawMessage("[" + strings.Repeat("{},", 1<<18) + "{}]")
	for _, tc := range []struct {
		name    string
		content []tool.Content
	}{
		{"no text block", nil},
		{"a text block", []tool.Content{{Type: tool.ContentText, Text: "a note"}}},
		{"a text block repeating it", []tool.Content{{Type: tool.ContentText, Text: string(out)}}},
	} {
		r := &tool.Result{CallID: "c1", Tool: "t", Output: out, Content: tc.content}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		text := wire.Text(r)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: output %d bytes, allocated %d bytes", tc.name, len(out), alloc)
		assert.Less(t, alloc, uint64(8*len(out)), "%s: Text allocated more than 8 times the output", tc.name)
		assert.LessOrEqual(t, len(text), wire.MaxResultText, tc.name)
		if tc.name == "a text block" {
			assert.Contains(t, text, "a note", "a text block that does not repeat the output is kept")
		}
		if tc.name == "a text block repeating it" {
			assert.True(t, text == wire.Text(&tool.Result{CallID: "c1", Tool: "t", Output: out}), "%s: the repeat is left out", tc.name)
		}
	}
	// Small output is still compared by value: a text block of the same
	// JSON spelt otherwise (key order, blanks) is left out.
	small := &tool.Result{CallID: "c1", Tool: "t", Output: json.RawMessage(`{"a":1,"b":[true]}`),
		Content: []tool.Content{{Type: tool.ContentText, Text: "{ \"b\": [true], \"a\": 1 }"}}}
	assert.Equal(t, `{"a":1,"b":[true]}`, wire.Text(small))
}
