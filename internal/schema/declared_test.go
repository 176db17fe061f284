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
	for _, n := range NestedPaths(raw) {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	assert.Equal(t, []string{"by_tag{}.name", "either.p", "files[].name", "options.backup"}, names, "the root's own (top) is left to sandbox.PathArguments")
	assert.Empty(t, NestedPaths(json.RawMessage(`{"type":"object","properties":{"top":{"type":"string","x-toolbelt-path":true}}}`)))
	assert.Empty(t, NestedPaths(json.RawMessage(`not json`)))
}

// A hostile schema is read to a bound: 32 levels, 256 paths.
func TestNestedPathsBounded(t *testing.T) {
	deep := `{"type":"string","x-toolbelt-path":true}`
	for range 100 {
		deep = `{"type":"object","properties":{"a":` + deep + `}}`
	}
	assert.Empty(t, NestedPaths(json.RawMessage(deep)), "past 32 levels nothing is read")

	var props []string
	for i := range 1000 {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"object","properties":{"x":{"type":"string","x-toolbelt-path":true}}}`, i))
	}
	wide := json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)
	assert.Len(t, NestedPaths(wide), 256)
}
