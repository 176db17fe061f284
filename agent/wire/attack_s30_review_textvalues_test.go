package wire_test

import (
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Text decoded a result's structured output of up to MaxResultText into
// Go values whenever it had a text block to compare with it: 16 KiB of
// [{},...] is some 5,400 maps, 800 KB, and 64 such results (an MCP
// server's, each with a text block "see above") allocated 51 MB at each
// render of the conversation's results. Output and text are decoded only
// when they hold few values (1024), and a text block that is the
// output's bytes is found without decoding.
func TestAttackS30ReviewTextDecodesNoManyValuedOutput(t *testing.T) {
	out := json.RawMessage("[" + strings.Repeat("{},", (16<<10)/3-2) + "{}]")
	render := func(content []tool.Content) uint64 {
		var rs []*tool.Result
		for i := range 64 {
			rs = append(rs, &tool.Result{CallID: "c" + strconv.Itoa(i), Tool: "t", Output: out, Content: content})
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := wire.OpenAIChat.Results(rs)
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		return after.TotalAlloc - before.TotalAlloc
	}
	baseline := render(nil) // nothing to compare
	alloc := render([]tool.Content{tool.TextContent("see above")})
	t.Logf("64 outputs of %d bytes, allocated %d bytes with a text block, %d without", len(out), alloc, baseline)
	assert.Less(t, alloc, baseline+4<<20, "comparing the text blocks with the outputs allocated more than 4 MB")

	// Repeats are still left out: the same bytes however large, a small
	// one spelt otherwise.
	assert.Equal(t, string(out), wire.Text(&tool.Result{Output: out, Content: []tool.Content{tool.TextContent(string(out))}}))
	small := json.RawMessage(`{"a":1,"b":[1,2]}`)
	assert.Equal(t, string(small), wire.Text(&tool.Result{Output: small, Content: []tool.Content{tool.TextContent("{\"b\": [1, 2], \"a\": 1.0}")}}))
	assert.Equal(t, string(small)+"\nsee above", wire.Text(&tool.Result{Output: small, Content: []tool.Content{tool.TextContent("see above")}}))
}
