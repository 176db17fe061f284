package approval

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// nestedPath is a path argument an input schema declares where
// sandbox.PathArguments does not look: on a property of an object inside
// the arguments (as `toolbelt:"path"` on a nested struct's field sets
// it), in a list's items, or in an alternative (anyOf, oneOf, allOf).
// segs are the steps to it from the arguments: a property name,
// itemsStep or valuesStep.
type nestedPath struct {
	segs []string
}

// The steps into a list's items and a map's values; a NUL keeps them apart
// from property names.
const (
	itemsStep  = "\x00[]"
	valuesStep = "\x00{}"
)

// Bounds on what nestedPathArgs reads of a schema (which an MCP server
// may send): how deep it looks and how many paths it keeps.
const (
	maxNestedDepth = 32
	maxNestedPaths = 256
)

var nestedPaths struct {
	sync.RWMutex
	m map[string][]nestedPath
}

// nestedPathArgs returns the path arguments inputSchema declares that
// sandbox.PathArguments (the root's own properties) leaves out, found
// through properties, items, prefixItems, additionalProperties and the
// alternatives of anyOf, oneOf and allOf. It is cached per schema.
func nestedPathArgs(inputSchema json.RawMessage) []nestedPath {
	nestedPaths.RLock()
	out, ok := nestedPaths.m[string(inputSchema)]
	nestedPaths.RUnlock()
	if ok {
		return out
	}
	var root map[string]any
	if json.Unmarshal(inputSchema, &root) == nil {
		top := sandbox.PathArguments(inputSchema)
		walkSchema(root, nil, 0, &out)
		out = slices.DeleteFunc(out, func(n nestedPath) bool { return len(n.segs) == 1 && slices.Contains(top, n.segs[0]) })
	}
	nestedPaths.Lock()
	if nestedPaths.m == nil || len(nestedPaths.m) > 4096 {
		nestedPaths.m = map[string][]nestedPath{} // schemas are few; bound it anyway
	}
	nestedPaths.m[string(inputSchema)] = out
	nestedPaths.Unlock()
	return out
}

// walkSchema appends to out the paths declared at node (reached by segs)
// and below it.
func walkSchema(node map[string]any, segs []string, depth int, out *[]nestedPath) {
	if depth > maxNestedDepth || len(*out) >= maxNestedPaths {
		return
	}
	if len(segs) > 0 && node[sandbox.PathKeyword] == true {
		*out = append(*out, nestedPath{segs: segs})
	}
	step := func(sub any, seg string) {
		if m, ok := sub.(map[string]any); ok {
			next := segs
			if seg != "" {
				next = append(segs[:len(segs):len(segs)], seg)
			}
			walkSchema(m, next, depth+1, out)
		}
	}
	if props, ok := node["properties"].(map[string]any); ok {
		for k, v := range props {
			step(v, k)
		}
	}
	switch items := node["items"].(type) {
	case map[string]any:
		step(items, itemsStep)
	case []any: // a tuple, as drafts before 2020-12 write it
		for _, it := range items {
			step(it, itemsStep)
		}
	}
	if prefix, ok := node["prefixItems"].([]any); ok {
		for _, it := range prefix {
			step(it, itemsStep)
		}
	}
	step(node["additionalProperties"], valuesStep)
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := node[k].([]any); ok {
			for _, a := range alts {
				step(a, "")
			}
		}
	}
}

// nestedValues appends the values found at segs below the object
// members fields: a property under every key a decoder may take for it
// (valuesOf), each item of a list, each value of a map. JSON null and ""
// are left out: the argument was not given.
func nestedValues(fields []member, segs []string, out []json.RawMessage) []json.RawMessage {
	var vals []json.RawMessage
	if segs[0] == valuesStep {
		for _, m := range fields {
			vals = append(vals, m.val)
		}
	} else {
		vals = valuesOf(fields, segs[0])
	}
	for _, v := range vals {
		out = valuesBelow(v, segs[1:], out)
	}
	return out
}

// valuesBelow appends the values found at segs in the JSON value v (see
// nestedValues).
func valuesBelow(v json.RawMessage, segs []string, out []json.RawMessage) []json.RawMessage {
	if len(segs) == 0 {
		if s := strings.TrimSpace(string(v)); s != "null" && s != `""` {
			out = append(out, v)
		}
		return out
	}
	if segs[0] == itemsStep {
		var items []json.RawMessage
		if json.Unmarshal(v, &items) == nil {
			for _, it := range items {
				out = valuesBelow(it, segs[1:], out)
			}
		}
		return out
	}
	if fields, ok := members(v); ok {
		out = nestedValues(fields, segs, out)
	}
	return out
}
