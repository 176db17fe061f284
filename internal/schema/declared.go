package schema

import (
	"encoding/json"
	"strings"
	"sync"
)

// NestedPath is a path argument an input schema declares (PathKeyword)
// below the root's own properties: on a property of an object inside the
// arguments (`toolbelt:"path"` on a nested struct's field), in a list's
// items or a map's values, or in an alternative (anyOf, oneOf, allOf).
type NestedPath struct {
	// Segs are the steps to it from the arguments: a property name,
	// ItemsStep or ValuesStep.
	Segs []string
	// Name is how messages show it: "options.backup", "files[].name".
	Name string
}

// The steps into a list's items and a map's values; a NUL keeps them apart
// from property names.
const (
	ItemsStep  = "\x00[]"
	ValuesStep = "\x00{}"
)

// Bounds on what NestedPaths reads of a schema (which an MCP server may
// send): how deep it looks and how many paths it keeps.
const (
	maxNestedDepth = 32
	maxNestedPaths = 256
)

var nestedPaths struct {
	sync.RWMutex
	m map[string][]NestedPath
}

// NestedPaths returns the path arguments inputSchema declares that the
// root's own properties do not (sandbox.PathArguments reads those), found
// through properties, items, prefixItems, additionalProperties and the
// alternatives of anyOf, oneOf and allOf, at most 32 deep and 256 in all.
// It is cached per schema: the governance policy and approval rules call
// it for every call.
func NestedPaths(inputSchema json.RawMessage) []NestedPath {
	nestedPaths.RLock()
	out, ok := nestedPaths.m[string(inputSchema)]
	nestedPaths.RUnlock()
	if ok {
		return out
	}
	var root map[string]any
	if json.Unmarshal(inputSchema, &root) == nil {
		walkDeclared(root, nil, 0, &out)
		props, _ := root["properties"].(map[string]any)
		kept := out[:0]
		for _, n := range out {
			if p, _ := props[n.Segs[0]].(map[string]any); len(n.Segs) == 1 && p[PathKeyword] == true {
				continue // one of the root's own
			}
			kept = append(kept, n)
		}
		out = kept
	}
	nestedPaths.Lock()
	if nestedPaths.m == nil || len(nestedPaths.m) > 4096 {
		nestedPaths.m = map[string][]NestedPath{} // schemas are few; bound it anyway
	}
	nestedPaths.m[string(inputSchema)] = out
	nestedPaths.Unlock()
	return out
}

// walkDeclared appends to out the paths declared at node (reached by segs)
// and below it.
func walkDeclared(node map[string]any, segs []string, depth int, out *[]NestedPath) {
	if depth > maxNestedDepth || len(*out) >= maxNestedPaths {
		return
	}
	if len(segs) > 0 && node[PathKeyword] == true {
		*out = append(*out, NestedPath{Segs: segs, Name: segsName(segs)})
	}
	step := func(sub any, seg string) {
		if m, ok := sub.(map[string]any); ok {
			next := segs
			if seg != "" {
				next = append(segs[:len(segs):len(segs)], seg)
			}
			walkDeclared(m, next, depth+1, out)
		}
	}
	if props, ok := node["properties"].(map[string]any); ok {
		for k, v := range props {
			step(v, k)
		}
	}
	switch items := node["items"].(type) {
	case map[string]any:
		step(items, ItemsStep)
	case []any: // a tuple, as drafts before 2020-12 write it
		for _, it := range items {
			step(it, ItemsStep)
		}
	}
	if prefix, ok := node["prefixItems"].([]any); ok {
		for _, it := range prefix {
			step(it, ItemsStep)
		}
	}
	step(node["additionalProperties"], ValuesStep)
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := node[k].([]any); ok {
			for _, a := range alts {
				step(a, "")
			}
		}
	}
}

// segsName is how messages show the path at segs: "options.backup",
// "files[].name", "by_tag{}.name".
func segsName(segs []string) string {
	var b strings.Builder
	for i, s := range segs {
		switch {
		case s == ItemsStep:
			b.WriteString("[]")
		case s == ValuesStep:
			b.WriteString("{}")
		case i > 0:
			b.WriteString("." + s)
		default:
			b.WriteString(s)
		}
	}
	return b.String()
}
