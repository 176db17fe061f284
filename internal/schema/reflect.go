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
func Reflect(t reflect.Type) (*Reflected, error) {
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
	l := &linter{onPath: map[reflect.Type]string{}}
	l.walk(t, "", false)
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
	out, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	sort.Strings(l.secrets)
	return &Reflected{Schema: out, Secrets: l.secrets}, nil
}

type linter struct {
	onPath  map[reflect.Type]string // struct types on the current path → where first seen
	errs    []string
	secrets []string
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

func (l *linter) walk(t reflect.Type, path string, viaEmbeddedPtr bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if isLeaf(t) {
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
		l.walk(t.Elem(), path+"[]", false)
		return
	case reflect.Map:
		l.walk(t.Elem(), path+"{}", false)
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
				l.walk(ft, path, isPtr)
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
		l.lintTag(f, fpath, omitempty)
		if hasOpt(f.Tag.Get("toolbelt"), "secret") {
			l.secrets = append(l.secrets, fpath)
		}
		l.walk(ft, fpath, false)
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
	knownFlags = map[string]bool{"required": true, "nullable": true, "uniqueItems": true, "deprecated": true, "-": true}
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
		case !hasEq && knownFlags[key]:
			inDescription = false
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
		if key == "required" && omitempty {
			l.errs = append(l.errs, fmt.Sprintf("field %s: tagged jsonschema required but its json tag has omitempty: drop omitempty to make it required, or drop required to make it optional", fpath))
		}
	}
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
