package policy

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// nestedPath is a path argument an input schema declares where
// sandbox.PathArguments does not look: on a property of an object inside
// the arguments (as `toolbelt:"path"` on a nested struct's field sets
// it), in a list's items, or in an alternative (anyOf, oneOf, allOf).
// segs are the steps to it from the arguments: a property name,
// itemsStep or valuesStep; name is how messages show it
// ("options.backup", "files[].name").
type nestedPath struct {
	segs []string
	name string
}

// The steps into a list's items and a map's values; a NUL keeps them apart
// from property names.
const (
	itemsStep  = "\x00[]"
	valuesStep = "\x00{}"
)

// Bounds on what nestedPathArgs reads of a schema (which an MCP server
// may send): how deep it looks, how many paths it keeps and how many
// subschemas it visits (a $ref may lead back to where it is).
const (
	maxNestedDepth = 32
	maxNestedPaths = 256
	maxNestedSteps = 1 << 14
)

// nestedPathSet is what nestedPathArgs found in a schema. cut: the schema
// declares paths, and a bound stopped the walk before it had read all of
// it, so a call's paths cannot all be judged (the call is refused).
type nestedPathSet struct {
	paths []nestedPath
	cut   bool
}

var nestedPaths struct {
	sync.RWMutex
	m map[string]nestedPathSet
}

// nestedPathArgs returns the path arguments inputSchema declares that
// sandbox.PathArguments (the root's own properties) leaves out, found
// through properties, items, prefixItems, additionalProperties, the
// alternatives of anyOf, oneOf and allOf, and local $refs (#/$defs/f),
// and whether a bound cut the walk short. It is cached per schema.
func nestedPathArgs(inputSchema json.RawMessage) ([]nestedPath, bool) {
	nestedPaths.RLock()
	set, ok := nestedPaths.m[string(inputSchema)]
	nestedPaths.RUnlock()
	if ok {
		return set.paths, set.cut
	}
	var root map[string]any
	if json.Unmarshal(inputSchema, &root) == nil {
		top := sandbox.PathArguments(inputSchema)
		w := schemaWalk{root: root}
		w.walk(root, nil, 0)
		set.paths = slices.DeleteFunc(w.out, func(n nestedPath) bool { return len(n.segs) == 1 && slices.Contains(top, n.segs[0]) })
		// A schema that declares no path anywhere has none past a bound.
		set.cut = w.cut && strings.Contains(string(inputSchema), sandbox.PathKeyword)
	}
	nestedPaths.Lock()
	if nestedPaths.m == nil || len(nestedPaths.m) > 4096 {
		nestedPaths.m = map[string]nestedPathSet{} // schemas are few; bound it anyway
	}
	nestedPaths.m[string(inputSchema)] = set
	nestedPaths.Unlock()
	return set.paths, set.cut
}

// schemaWalk is one walk of a schema by nestedPathArgs.
type schemaWalk struct {
	root  map[string]any
	out   []nestedPath
	steps int
	cut   bool // a bound stopped the walk
}

// resolve returns the subschema a local $ref ("#/$defs/f",
// "#/definitions/f", "#") names in the walk's root; ok is false for
// another reference, or one that names nothing there.
func (w *schemaWalk) resolve(ref string) (map[string]any, bool) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	if p, err := url.PathUnescape(ptr); err == nil {
		ptr = p
	}
	var cur any = w.root
	if ptr != "" {
		if !strings.HasPrefix(ptr, "/") {
			return nil, false
		}
		for _, tok := range strings.Split(ptr[1:], "/") {
			tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
			switch c := cur.(type) {
			case map[string]any:
				cur = c[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(c) {
					return nil, false
				}
				cur = c[i]
			default:
				return nil, false
			}
		}
	}
	m, ok := cur.(map[string]any)
	return m, ok
}

// walk appends to w.out the paths declared at node (reached by segs) and
// below it.
func (w *schemaWalk) walk(node map[string]any, segs []string, depth int) {
	if depth > maxNestedDepth || w.steps >= maxNestedSteps {
		w.cut = true
		return
	}
	w.steps++
	if len(segs) > 0 && node[sandbox.PathKeyword] == true && len(w.out) >= maxNestedPaths {
		w.cut = true
		return
	}
	if len(segs) > 0 && node[sandbox.PathKeyword] == true {
		var name strings.Builder
		for i, s := range segs {
			switch {
			case s == itemsStep:
				name.WriteString("[]")
			case s == valuesStep:
				name.WriteString("{}")
			case i > 0:
				name.WriteString("." + s)
			default:
				name.WriteString(s)
			}
		}
		w.out = append(w.out, nestedPath{segs: segs, name: name.String()})
	}
	step := func(sub any, seg string) {
		if m, ok := sub.(map[string]any); ok {
			next := segs
			if seg != "" {
				next = append(segs[:len(segs):len(segs)], seg)
			}
			w.walk(m, next, depth+1)
		}
	}
	if ref, ok := node["$ref"].(string); ok {
		if m, ok := w.resolve(ref); ok {
			step(m, "")
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

// nestedValues appends the values found at segs in the JSON value v: a
// property under every key a decoder may take for it (sameKey), each item
// of a list, each value of a map. JSON null and "" are left out: the
// argument was not given.
func nestedValues(v []byte, segs []string, out [][]byte) [][]byte {
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
				out = nestedValues(it, segs[1:], out)
			}
		}
		return out
	}
	fields, ok := topFields(v, nil)
	if !ok {
		return out
	}
	for _, f := range fields {
		if segs[0] == valuesStep || sameKey(f.key, segs[0]) {
			out = nestedValues(f.val, segs[1:], out)
		}
	}
	return out
}
