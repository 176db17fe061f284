package registry_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// refFanOut is an object schema whose levels each refer to the next one
// width times: levels*width $refs as written, width^levels copies once
// they are inlined.
func refFanOut(levels, width int, leafDescription string) json.RawMessage {
	defs := make([]string, 0, levels+1)
	for i := 0; i < levels; i++ {
		props := make([]string, width)
		for j := range props {
			props[j] = fmt.Sprintf(`"p%d":{"$ref":"#/$defs/d%d"}`, j, i+1)
		}
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object","properties":{%s}}`, i, strings.Join(props, ",")))
	}
	defs = append(defs, fmt.Sprintf(`"d%d":{"type":"string","description":%q}`, levels, leafDescription))
	return json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `}}`)
}

// Gemini has no $refs, so the export inlines them: a schema of 1 KB whose
// 8 levels each refer to the next 4 times became 65,536 copies, and one
// of 12 levels (1.6 KB) 16 million: the old export wrote them all (this
// test ran 517 s on it, the 12 levels most of that). A tool whose
// declaration would pass the bound once inlined is left out, with a note
// saying why.
func TestAttackGeminiExportOfFanningRefsIsBounded(t *testing.T) {
	for name, raw := range map[string]json.RawMessage{
		"many copies":        refFanOut(8, 4, "d"),
		"deep":               refFanOut(12, 4, "d"),
		"copies of big text": refFanOut(2, 4, strings.Repeat("x", 100<<10)),
	} {
		t.Run(name, func(t *testing.T) {
			spec := tool.Spec{Name: "bomb", Description: "d", InputSchema: raw}
			var (
				def   json.RawMessage
				notes []registry.Note
				err   error
			)
			allocs := testing.AllocsPerRun(1, func() { def, notes, err = registry.ExportTool(registry.Gemini, spec) })
			require.NoError(t, err)
			assert.True(t, def == nil, "the tool is left out (%d bytes)", len(def))
			require.Len(t, notes, 1)
			assert.Contains(t, notes[0].Message, "left out")
			assert.Contains(t, notes[0].Message, "bytes once its $refs are inlined")
			assert.Contains(t, notes[0].Message, "refer to shared definitions fewer times")
			assert.Less(t, allocs, 100_000.0)
			// Other formats keep the $refs and are unaffected.
			def, _, err = registry.ExportTool(registry.Anthropic, spec)
			require.NoError(t, err)
			assert.Less(t, len(def), 2*len(raw)+1000)
		})
	}
	// A definition shared a few times is still inlined.
	def, notes, err := registry.ExportTool(registry.Gemini, tool.Spec{Name: "shared", Description: "d", InputSchema: refFanOut(3, 3, "d")})
	require.NoError(t, err)
	assert.Empty(t, notes)
	assert.Equal(t, 27, strings.Count(string(def), `"type":"string"`))
}
