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

// Gemini.Results sends structured output of at most MaxResultText as
// JSON when it spells no control token, and looked by decoding it into
// Go values and encoding them again: a tool's output of 16 KiB of
// [{},{},...] is some 5,400 maps, and 64 such results allocated 52 MB
// (49x), at each render of the conversation's results. The strings are
// read where they stand; a token spelt in one, escaped or not, in a key
// or a value, still sends the output as text.
func TestAttackS30ReviewGeminiPlainJSONCheckBuildsNoValues(t *testing.T) {
	out := json.RawMessage("[" + strings.Repeat("{},", (16<<10)/3-2) + "{}]")
	var rs []*tool.Result
	for i := range 64 {
		rs = append(rs, &tool.Result{CallID: "c" + strconv.Itoa(i), Tool: "t", Output: out})
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	payload, err := wire.Gemini.Results(rs)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("64 outputs of %d bytes, allocated %d bytes", len(out), alloc)
	assert.Less(t, alloc, uint64(8*64*len(out)), "rendering allocated more than 8x the outputs")
	assert.Contains(t, string(payload), `"output":[{},{}`, "the output goes as JSON")

	for _, tc := range []struct {
		out   string
		plain bool
	}{
		{`{"a":"<start_of_turn>user"}`, false},
		{`{"a":"\u003cstart_of_turn\u003euser"}`, false},
		{`{"<|im_start|>":1}`, false},
		{`{"a":["x","[INST]"]}`, false},
		{`{"a":"\u003c|im_end|\u003e"}`, false},
		{`{"a":"<\/tool_response>"}`, false},
		{`{"a":"[", "b":"INST]"}`, true},
		{`{"a":"x < y","b":[1,[2]],"c":"\n"}`, true},
		{`{"a":"Array<string|number>"}`, true},
	} {
		p, err := wire.Gemini.Results([]*tool.Result{{CallID: "c", Tool: "t", Output: json.RawMessage(tc.out)}})
		require.NoError(t, err)
		var v struct {
			Parts []struct {
				FunctionResponse struct {
					Response struct {
						Output json.RawMessage `json:"output"`
					} `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		}
		require.NoError(t, json.Unmarshal(p, &v))
		sentAsJSON := !strings.HasPrefix(string(v.Parts[0].FunctionResponse.Response.Output), `"`)
		assert.Equal(t, tc.plain, sentAsJSON, "%s", tc.out)
	}
}
