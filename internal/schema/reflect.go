// Package schema reflects Go types into JSON Schemas, lints their struct tags,
// compiles schemas into validators, and formats validation errors for models.
//
// It is internal: the public face is tool.Func (reflection) and the executor
// (validation).
package schema

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/invopop/jsonschema"
)

// Reflected is the result of reflecting a Go type.
type Reflected struct {
	// SelfValid is set by ReflectOutput when every value of the type, once
	// encoded by encoding/json, satisfies Schema: no field carries a value
	// constraint (enum, bounds, pattern, format...) and no field has a
	// custom JSON encoding. Such output needs no validation at run time.
	SelfValid bool
	// Schema is the JSON Schema: an object root, no $schema or $id, nested
	// structs inlined.
	Schema json.RawMessage
	// Secrets are the dotted JSON paths of fields tagged `toolbelt:"secret"`.
	Secrets []string
}

var (
	timeType          = reflect.TypeFor[time.Time]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
)

// Reflect builds the JSON Schema of t, which must be a struct (or pointer to
// one) or a map with string keys. Tags are linted first, so a mistake in a
// tag is an error naming the field instead of a silently wrong schema, and a
// recursive type is refused before reflection (invopop's inlining would
// overflow the stack).
func Reflect(t reflect.Type) (*Reflected, error) { return reflectType(t, false) }

// ReflectOutput is Reflect for a tool's output type. Since encoding/json
// writes null for a nil slice, map or pointer, such fields (and slice items
// and map values of those kinds) accept null in the output schema, unless
// they are omitempty; and the result says whether the type is SelfValid.
func ReflectOutput(t reflect.Type) (*Reflected, error) { return reflectType(t, true) }

func reflectType(t reflect.Type, output bool) (*Reflected, error) {
	if t == nil {
		return nil, fmt.Errorf("no type given: the arguments type must be a struct")
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Struct:
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
	default:
		return nil, fmt.Errorf("type %s is a %s: tool arguments and structured output must be a struct (or a map with string keys), because every provider wants an object at the root", t, t.Kind())
	}
	l := &linter{onPath: map[reflect.Type]string{}, names: map[string]string{}}
	l.walk(t, "", nil, false)
	if len(l.errs) > 0 {
		return nil, fmt.Errorf("type %s: %s", t, strings.Join(l.errs, "; "))
	}
	r := &jsonschema.Reflector{ExpandedStruct: true, DoNotReference: true, Anonymous: true}
	s := r.ReflectFromType(t)
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("type %s: encode schema: %w", t, err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("type %s: decode schema: %w", t, err)
	}
	delete(m, "$schema")
	delete(m, "$id")
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if output {
		for _, segs := range l.nilable {
			makeNullable(m, segs)
		}
	}
	for _, segs := range l.paths {
		markPath(m, segs)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	sort.Strings(l.secrets)
	return &Reflected{Schema: out, Secrets: l.secrets, SelfValid: output && !l.constrained}, nil
}

// PathKeyword is the schema keyword that marks an argument as a file path
// (a string, or an array of strings): `toolbelt:"path"` on a field sets it
// to true. The policy extension and approval rules resolve such arguments
// before matching them.
const PathKeyword = "x-toolbelt-path"

// markPath sets PathKeyword on the value at segs (a list's elements and a
// map's values included: files[].name).
func markPath(s map[string]any, segs []string) {
	if node, ok := nodeAt(s, segs).(map[string]any); ok {
		node[PathKeyword] = true
	}
}

// makeNullable adds "null" to the type of the value at segs.
func makeNullable(s map[string]any, segs []string) {
	node, ok := nodeAt(s, segs).(map[string]any)
	if !ok {
		return
	}
	switch t := node["type"].(type) {
	case string:
		if t != "null" {
			node["type"] = []any{t, "null"}
		}
	case []any:
		for _, x := range t {
			if x == "null" {
				return
			}
		}
		node["type"] = append(t, "null")
	}
}

// nodeAt walks segs (property names, "[]" for a list's items, "{}" for a
// map's values) from s and returns the schema found there, or nil.
func nodeAt(s map[string]any, segs []string) any {
	var node any = s
	for _, seg := range segs {
		m, _ := node.(map[string]any)
		switch seg {
		case "[]":
			node = m["items"]
		case "{}":
			node = m["additionalProperties"]
		default:
			props, _ := m["properties"].(map[string]any)
			node = props[seg]
		}
	}
	return node
}

type linter struct {
	onPath      map[reflect.Type]string // struct types on the current path → where first seen
	errs        []string
	secrets     []string
	paths       [][]string // schema paths of fields tagged `toolbelt:"path"`
	nilable     [][]string // schema paths of values encoding/json may write as null
	constrained bool       // some field carries a value constraint or a custom encoding
	// names are the JSON names of the fields of each object, embedded
	// structs' promoted fields included (path, NUL, name), and the Go
	// field that has it.
	names map[string]string
}

func nilableKind(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer:
		return true
	}
	return false
}

func appendSeg(segs []string, seg string) []string {
	return append(append(make([]string, 0, len(segs)+1), segs...), seg)
}

func isLeaf(t reflect.Type) bool {
	if t == timeType || t == rawMessageType {
		return true
	}
	// Types with their own JSON encoding decide their own shape.
	return t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonMarshalerType) ||
		t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func (l *linter) walk(t reflect.Type, path string, segs []string, viaEmbeddedPtr bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if isLeaf(t) {
		if t != timeType {
			l.constrained = true // a custom encoding may write anything
		}
		return
	}
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		where := path
		if where == "" {
			where = "(root)"
		}
		l.errs = append(l.errs, fmt.Sprintf("field %s has kind %s, which cannot be a JSON value: change its type or tag it `json:\"-\"`", where, t.Kind()))
		return
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return // []byte is a base64 string
		}
		if nilableKind(t.Elem()) {
			l.nilable = append(l.nilable, appendSeg(segs, "[]"))
		}
		l.walk(t.Elem(), path+"[]", appendSeg(segs, "[]"), false)
		return
	case reflect.Map:
		if nilableKind(t.Elem()) {
			l.nilable = append(l.nilable, appendSeg(segs, "{}"))
		}
		l.walk(t.Elem(), path+"{}", appendSeg(segs, "{}"), false)
		return
	case reflect.Struct:
	default:
		return
	}
	if first, ok := l.onPath[t]; ok {
		if viaEmbeddedPtr {
			l.errs = append(l.errs, fmt.Sprintf("embedded pointer cycle: %s embeds *%s, which contains itself again (first at %q): embed a value type or break the cycle", nonEmpty(path), t.Name(), first))
		} else {
			l.errs = append(l.errs, fmt.Sprintf("field %s refers back to %s (first at %q): recursive types are refused because a model-facing schema must be finite (Gemini cannot express recursion); use a flat list with parent ids, or give the tool its own schema with tool.WithInputSchema", nonEmpty(path), t, nonEmpty(first)))
		}
		return
	}
	l.onPath[t] = path
	defer delete(l.onPath, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		jsonTag := f.Tag.Get("json")
		if jsonTag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(jsonTag, ",")
		omitempty := hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero")
		ft := f.Type
		if f.Anonymous && name == "" {
			// Embedded struct: its fields are promoted into this object.
			et := ft
			isPtr := false
			for et.Kind() == reflect.Pointer {
				et, isPtr = et.Elem(), true
			}
			if et.Kind() == reflect.Struct && !isLeaf(et) {
				l.walk(ft, path, segs, isPtr)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fpath := join(path, name)
		// encoding/json fills the shallower of two fields with one name
		// (neither when they are as deep), while the schema shows the
		// rules of the one reflected last: a stricter field over an
		// embedded one lost its pattern, and the tool ran with what the
		// pattern forbids.
		goName := f.Name
		if t.Name() != "" {
			goName = t.Name() + "." + f.Name
		}
		if other, ok := l.names[path+"\x00"+name]; ok {
			l.errs = append(l.errs, fmt.Sprintf("fields %s and %s both have the JSON name %q (one promoted from an embedded struct): encoding/json fills only the shallower one (neither when they are as deep) and the schema shows the rules of one of them: rename one, or tag the one not read from JSON `json:\"-\"`", other, goName, name))
		}
		l.names[path+"\x00"+name] = goName
		l.lintTag(f, fpath, omitempty)
		if hasOpt(f.Tag.Get("toolbelt"), "secret") {
			l.secrets = append(l.secrets, fpath)
		}
		fsegs := appendSeg(segs, name)
		if hasOpt(f.Tag.Get("toolbelt"), "path") {
			l.paths = append(l.paths, fsegs)
		}
		if !omitempty && nilableKind(ft) {
			l.nilable = append(l.nilable, fsegs)
		}
		l.walk(ft, fpath, fsegs, false)
	}
}

func nonEmpty(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

func hasOpt(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if strings.TrimSpace(o) == want {
			return true
		}
	}
	return false
}

// knownKeys are the key=value options invopop/jsonschema understands in a
// `jsonschema:"..."` tag; knownFlags are its bare options.
var (
	knownKeys = map[string]bool{
		"title": true, "description": true, "type": true, "anchor": true, "default": true,
		"example": true, "enum": true, "const": true, "format": true, "pattern": true,
		"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
		"multipleOf": true, "minLength": true, "maxLength": true, "minItems": true,
		"maxItems": true, "minProperties": true, "maxProperties": true, "readOnly": true,
		"writeOnly": true, "oneof_required": true, "anyof_required": true, "oneof_ref": true,
		"anyof_ref": true, "oneof_type": true, "anyof_type": true, "contentEncoding": true,
		"contentMediaType": true, "uniqueItems": true, "nullable": true, "deprecated": true,
		"required": true, "pattern_properties": true,
	}
	// annotationKeys describe a value without constraining it.
	annotationKeys = map[string]bool{"title": true, "description": true, "example": true, "default": true, "anchor": true, "readOnly": true, "writeOnly": true, "deprecated": true}
	knownFlags     = map[string]bool{"required": true, "nullable": true, "uniqueItems": true, "deprecated": true, "-": true}
)

func (l *linter) lintTag(f reflect.StructField, fpath string, omitempty bool) {
	tag, ok := f.Tag.Lookup("jsonschema")
	if !ok {
		return
	}
	parts := splitTag(tag)
	inDescription := false
	for _, p := range parts {
		key, _, hasEq := strings.Cut(p, "=")
		key = strings.TrimSpace(key)
		switch {
		case hasEq && knownKeys[key]:
			inDescription = key == "description" || key == "title"
			if !annotationKeys[key] {
				l.constrained = true
			}
		case !hasEq && knownFlags[key]:
			inDescription = false
			if key == "uniqueItems" {
				l.constrained = true
			}
		case inDescription:
			l.errs = append(l.errs, fmt.Sprintf("field %s: the jsonschema tag's description is cut at a comma before %q: move the text to `jsonschema_description:\"...\"`, which may contain commas", fpath, strings.TrimSpace(p)))
			return
		case hasEq:
			l.errs = append(l.errs, fmt.Sprintf("field %s: unknown jsonschema tag key %q: check the spelling (known keys include description, enum, minimum, maximum, pattern, format)", fpath, key))
			return
		default:
			l.errs = append(l.errs, fmt.Sprintf("field %s: unknown jsonschema tag option %q: check the spelling", fpath, key))
			return
		}
		if numberBounds[key] && hasEq && quotedNumber(f) {
			l.errs = append(l.errs, fmt.Sprintf("field %s: its json tag's string option makes it a JSON string (\"5\"), and a string has no %s, so the schema would not check it: drop the string option, or the bound and check the value in the tool", fpath, key))
			return
		}
		if (key == "exclusiveMinimum" || key == "exclusiveMaximum") && hasEq && isFloat32(f.Type) {
			l.errs = append(l.errs, fmt.Sprintf("field %s: a float32 rounds the number sent (1e-50 reads as 0, 0.99999999 as 1), onto the %s the schema checks exactly: make it a float64, or use minimum or maximum", fpath, key))
			return
		}
		if key == "required" && omitempty {
			l.errs = append(l.errs, fmt.Sprintf("field %s: tagged jsonschema required but its json tag has omitempty: drop omitempty to make it required, or drop required to make it optional", fpath))
		}
	}
}

// isFloat32 reports whether t is a float32, through pointers, slices and
// arrays: encoding/json rounds a number into it (strconv.ParseFloat(s,
// 32)), so 1e-50 passed exclusiveMinimum 0, which the validator checks
// exactly, and the tool ran with 0. A float64 is checked as it reads the
// number (Validator.Validate); an inclusive bound holds after rounding.
func isFloat32(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t.Kind() == reflect.Float32
}

// numberBounds are the jsonschema tag keys that bound a number.
var numberBounds = map[string]bool{"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true}

// quotedNumber reports whether encoding/json reads the field, a number,
// from a JSON string (the json tag's string option): invopop then writes
// it as {"type":"string"} and drops its bounds, which a string does not
// have, so a field capped at 10 took "1000".
func quotedNumber(f reflect.StructField) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	if !hasOpt(opts, "string") {
		return false
	}
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// splitTag splits a jsonschema tag on commas, honouring invopop's `\,` escape.
func splitTag(tag string) []string {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(tag); i++ {
		if tag[i] == '\\' && i+1 < len(tag) && tag[i+1] == ',' {
			cur.WriteByte(',')
			i++
			continue
		}
		if tag[i] == ',' {
			parts = append(parts, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(tag[i])
	}
	return append(parts, cur.String())
}
