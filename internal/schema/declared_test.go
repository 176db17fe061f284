package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNestedPaths(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{
		"top":{"type":"string","x-toolbelt-path":true},
		"options":{"type":"object","properties":{"backup":{"type":"string","x-toolbelt-path":true}}},
		"files":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string","x-toolbelt-path":true}}}},
		"by_tag":{"type":"object","additionalProperties":{"type":"object","properties":{"name":{"type":"string","x-toolbelt-path":true}}}},
		"either":{"anyOf":[{"type":"object","properties":{"p":{"type":"string","x-toolbelt-path":true}}}]},
		"plain":{"type":"string"}}}`)
	var names []string
	paths, cut := NestedPaths(raw)
	assert.False(t, cut)
	for _, n := range paths {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	assert.Equal(t, []string{"by_tag{}.name", "either.p", "files[].name", "options.backup"}, names, "the root's own (top) is left to sandbox.PathArguments")
	top, _ := NestedPaths(json.RawMessage(`{"type":"object","properties":{"top":{"type":"string","x-toolbelt-path":true}}}`))
	assert.Empty(t, top)
	none, cut := NestedPaths(json.RawMessage(`not json`))
	assert.Empty(t, none)
	assert.False(t, cut)
	// Behind a local $ref.
	ref, _ := NestedPaths(json.RawMessage(`{"type":"object","$defs":{"f":{"type":"object","properties":{"name":{"type":"string","x-toolbelt-path":true}}}},
		"properties":{"files":{"type":"array","items":{"$ref":"#/$defs/f"}}}}`))
	if assert.Len(t, ref, 1) {
		assert.Equal(t, "files[].name", ref[0].Name)
	}
}

// A hostile schema is read to a bound (32 levels, 256 paths, a $ref that
// loops), and says it was cut: its calls are refused, not judged in part.
func TestNestedPathsBounded(t *testing.T) {
	deep := `{"type":"string","x-toolbelt-path":true}`
	for range 100 {
		deep = `{"type":"object","properties":{"a":` + deep + `}}`
	}
	paths, cut := NestedPaths(json.RawMessage(deep))
	assert.Empty(t, paths, "past 32 levels nothing is read")
	assert.True(t, cut)

	var props []string
	for i := range 1000 {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"object","properties":{"x":{"type":"string","x-toolbelt-path":true}}}`, i))
	}
	wide := json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)
	paths, cut = NestedPaths(wide)
	assert.Len(t, paths, 256)
	assert.True(t, cut)
	_, cut = NestedPaths(json.RawMessage(`{"type":"object","$defs":{"l":{"type":"object","properties":{"p":{"type":"string","x-toolbelt-path":true},"next":{"$ref":"#/$defs/l"}}}},"properties":{"list":{"$ref":"#/$defs/l"}}}`))
	assert.True(t, cut, "a $ref that loops ends at the depth bound")
}
