package schema

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strconv"
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
// send): how deep it looks, how many paths it keeps and how many
// subschemas it visits (a $ref may lead back to where it is).
const (
	MaxNestedDepth = 32
	MaxNestedPaths = 256
	maxNestedSteps = 1 << 14
)

// nestedSet is what NestedPaths found in a schema.
type nestedSet struct {
	paths []NestedPath
	cut   bool
}

var nestedPaths struct {
	sync.RWMutex
	m map[string]nestedSet
}

// NestedPaths returns the path arguments inputSchema declares that the
// root's own properties do not (sandbox.PathArguments reads those), found
// through properties, items, prefixItems, additionalProperties, the
// alternatives of anyOf, oneOf and allOf, and local $refs (#/$defs/f);
// cut is true when the schema declares paths and a bound (32 levels, 256
// paths, 16,384 subschemas visited) stopped the walk before it had read
// all of it, or when a keyword it does not follow (patternProperties,
// not, unevaluatedProperties, ...) or a $ref it cannot resolve may apply
// a subschema that declares a path: a call's paths cannot all be judged,
// and rules that judge paths refuse it. It is cached per schema: the governance policy and
// approval rules call it for every call.
func NestedPaths(inputSchema json.RawMessage) (paths []NestedPath, cut bool) {
	nestedPaths.RLock()
	set, ok := nestedPaths.m[string(inputSchema)]
	nestedPaths.RUnlock()
	if ok {
		return set.paths, set.cut
	}
	var root map[string]any
	if json.Unmarshal(inputSchema, &root) == nil {
		w := schemaWalk{root: root, reached: map[uintptr]bool{}}
		w.walk(root, nil, 0)
		// A path declared where the walk does not go (patternProperties,
		// contains, a $ref it cannot resolve) is validated but cannot be
		// found in the arguments: the walk is cut, so rules that judge
		// paths refuse the call rather than pass it unjudged.
		declaredAt(root, true, func(m map[string]any) {
			if !w.reached[reflect.ValueOf(m).Pointer()] && reflect.ValueOf(m).Pointer() != reflect.ValueOf(root).Pointer() {
				w.cut = true
			}
		})
		props, _ := root["properties"].(map[string]any)
		for _, n := range w.out {
			if p, _ := props[n.Segs[0]].(map[string]any); len(n.Segs) == 1 && p[PathKeyword] == true {
				continue // one of the root's own
			}
			set.paths = append(set.paths, n)
		}
		// A schema that declares no path anywhere has none past a bound.
		set.cut = w.cut && strings.Contains(string(inputSchema), PathKeyword)
	}
	nestedPaths.Lock()
	if nestedPaths.m == nil || len(nestedPaths.m) > 4096 {
		nestedPaths.m = map[string]nestedSet{} // schemas are few; bound it anyway
	}
	nestedPaths.m[string(inputSchema)] = set
	nestedPaths.Unlock()
	return set.paths, set.cut
}

// schemaWalk is one walk of a schema by NestedPaths.
type schemaWalk struct {
	root  map[string]any
	out   []NestedPath
	steps int
	cut   bool // a bound stopped the walk
	// reached are the subschemas declaring a path the walk found.
	reached map[uintptr]bool
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
	if depth > MaxNestedDepth || w.steps >= maxNestedSteps {
		w.cut = true
		return
	}
	w.steps++
	if len(segs) > 0 && node[PathKeyword] == true {
		if len(w.out) >= MaxNestedPaths {
			w.cut = true
			return
		}
		w.out = append(w.out, NestedPath{Segs: segs, Name: segsName(segs)})
		w.reached[reflect.ValueOf(node).Pointer()] = true
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
		} else {
			w.cut = true // it may lead to a path (kept only if one is declared)
		}
	}
	// A keyword walk does not follow may apply, here or through a $ref, a
	// subschema that declares a path walk also reaches another way: that
	// path is validated there but not found, so the walk is cut.
	for k, sub := range node {
		if !followed[k] && !valueKeywords[k] && k != "$defs" && k != "definitions" && w.declares(sub, map[uintptr]bool{}) {
			w.cut = true
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
	// Applied to the value in place, as the alternatives are.
	for _, k := range []string{"if", "then", "else"} {
		step(node[k], "")
	}
	if deps, ok := node["dependentSchemas"].(map[string]any); ok {
		for _, d := range deps {
			step(d, "")
		}
	}
}

// followed are the keywords schemaWalk.walk follows to the values their
// subschemas apply to.
var followed = map[string]bool{"$ref": true, "properties": true, "items": true, "prefixItems": true, "additionalProperties": true,
	"anyOf": true, "oneOf": true, "allOf": true, "if": true, "then": true, "else": true, "dependentSchemas": true, PathKeyword: true}

// declares reports whether v, a subschema or part of one, may declare a
// path, through local $refs too: a $dynamicRef, a $recursiveRef or a $ref
// walk cannot resolve may lead anywhere, and so does a walk past the step
// bound. seen holds the subschemas already looked at.
func (w *schemaWalk) declares(v any, seen map[uintptr]bool) bool {
	switch x := v.(type) {
	case map[string]any:
		p := reflect.ValueOf(x).Pointer()
		if seen[p] {
			return false
		}
		seen[p] = true
		if w.steps++; w.steps > maxNestedSteps || x[PathKeyword] == true || x["$dynamicRef"] != nil || x["$recursiveRef"] != nil {
			return true
		}
		if ref, ok := x["$ref"].(string); ok {
			m, ok := w.resolve(ref)
			if !ok || w.declares(m, seen) {
				return true
			}
		}
		for k, c := range x {
			if !valueKeywords[k] && k != "$ref" && w.declares(c, seen) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if w.declares(c, seen) {
				return true
			}
		}
	}
	return false
}

// valueKeywords hold JSON values, not schemas: a PathKeyword in them
// declares nothing.
var valueKeywords = map[string]bool{"enum": true, "const": true, "default": true, "examples": true}

// schemaMaps are the keywords whose object maps names to schemas.
var schemaMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}

// declaredAt calls fn for each subschema below v (a schema when isSchema,
// else a JSON value) that declares a path (PathKeyword), wherever it is.
func declaredAt(v any, isSchema bool, fn func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		if isSchema && x[PathKeyword] == true {
			fn(x)
		}
		for k, c := range x {
			switch {
			case valueKeywords[k]:
			case schemaMaps[k]:
				if m, ok := c.(map[string]any); ok {
					for _, s := range m {
						declaredAt(s, true, fn)
					}
				}
			default:
				declaredAt(c, true, fn)
			}
		}
	case []any:
		for _, c := range x {
			declaredAt(c, isSchema, fn)
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
