package schema

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A field tagged `toolbelt:"path"` is declared a path (PathKeyword) also in
// the elements of a list and the values of a map: the governance policy and
// approval rules read declared paths at any depth, but the mark was set
// only through object properties, so a []struct{Path} tool's paths went
// unjudged.
func TestPathTagMarkedInListsAndMaps(t *testing.T) {
	type file struct {
		Name string `json:"name" toolbelt:"path"`
	}
	type in struct {
		Files  []file          `json:"files"`
		ByTag  map[string]file `json:"by_tag,omitempty"`
		Nested [][]file        `json:"nested,omitempty"`
		Top    string          `json:"top" toolbelt:"path"`
	}
	r, err := Reflect(reflect.TypeFor[in]())
	require.NoError(t, err)
	var s map[string]any
	require.NoError(t, json.Unmarshal(r.Schema, &s))
	at := func(segs ...string) any {
		n, _ := nodeAt(s, segs).(map[string]any)
		return n[PathKeyword]
	}
	assert.Equal(t, true, at("top"))
	assert.Equal(t, true, at("files", "[]", "name"), "in a list's elements")
	assert.Equal(t, true, at("by_tag", "{}", "name"), "in a map's values")
	assert.Equal(t, true, at("nested", "[]", "[]", "name"), "in a list of lists")
}
