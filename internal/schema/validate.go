package schema

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/toolbelt-go/toolbelt/internal/redact"
)

// Validator is a compiled JSON Schema. It is safe for concurrent use.
type Validator struct {
	schema *jsonschema.Schema
	nulls  *nullPlan
	raw    json.RawMessage
	// anyObject is set when the schema accepts every JSON object (such as
	// {"type":"object","properties":{}}, the schema of a tool without
	// arguments): an object then needs no walk through the validator.
	anyObject bool
	// secrets are the paths (redact syntax) of fields whose values never
	// appear in an error; names that look secret are hidden too.
	secrets [][]string
}

var seq atomic.Uint64

// WithSecrets returns a copy of v whose errors never show the value of a
// field at one of paths (the syntax of tool.Spec.Secrets: "pin",
// "auth.token", "items[].key", "env{}.value"), nor of a field whose name
// looks secret (redact.LooksSecret). The rule is kept ("pin: must be >=
// 100000"); the value it saw is not.
func (v *Validator) WithSecrets(paths []string) *Validator {
	c := *v
	c.secrets = nil
	for _, p := range paths {
		c.secrets = append(c.secrets, secretSegments(p))
	}
	return &c
}

// secretSegments splits a redact path into names, "[]" and "{}".
func secretSegments(p string) []string {
	var out []string
	for _, part := range strings.Split(p, ".") {
		name := strings.TrimRight(part, "[]{}")
		if name != "" {
			out = append(out, name)
		}
		rest := part[len(name):]
		for len(rest) >= 2 {
			out = append(out, rest[:2])
			rest = rest[2:]
		}
	}
	return out
}

// errorSegments splits a FieldError path ("items[2].key") into names and
// "[]" for each index.
func errorSegments(p string) []string {
	var out []string
	for _, part := range strings.Split(p, ".") {
		name, idx, _ := strings.Cut(part, "[")
		if name != "" {
			out = append(out, name)
		}
		for idx != "" {
			out = append(out, "[]")
			_, idx, _ = strings.Cut(idx, "[")
		}
	}
	return out
}

// hidden reports whether the field at an error path holds a secret value.
func (v *Validator) hidden(path string) bool {
	segs := errorSegments(path)
	for _, s := range segs {
		if s != "[]" && redact.LooksSecret(s) {
			return true
		}
	}
	for _, sec := range v.secrets {
		if segmentsMatch(sec, segs) {
			return true
		}
	}
	return false
}

// segmentsMatch reports whether a secret path covers the error path: a
// prefix match, "{}" matching any name, "[]" an index, and arrays
// transparent to names (as redaction treats them).
func segmentsMatch(sec, segs []string) bool {
	i := 0
	for _, s := range sec {
		for i < len(segs) && segs[i] == "[]" && s != "[]" {
			i++ // arrays are transparent to key segments
		}
		if i >= len(segs) {
			return false
		}
		switch {
		case s == "{}" && segs[i] != "[]", s == "[]" && segs[i] == "[]", s == segs[i]:
			i++
		default:
			return false
		}
	}
	return true
}

// hideValue drops the value a rule quotes ("must be >= 100000, got 1234").
func hideValue(rule string) string {
	if i := strings.Index(rule, ", got "); i >= 0 {
		return rule[:i] + " (the value is secret and not shown)"
	}
	return rule
}

// CheckObject checks that raw is a JSON Schema object whose root describes
// an object (type "object", or no type with properties).
func CheckObject(raw json.RawMessage) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return errors.New("schema is empty: give a JSON Schema such as {\"type\":\"object\",\"properties\":{}}")
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("schema is not a JSON object: %v", err)
	}
	switch t := m["type"].(type) {
	case string:
		if t != "object" {
			return fmt.Errorf("schema root has type %q: the root must be {\"type\":\"object\"}, because every provider wants an object of arguments", t)
		}
	case nil:
		if _, ok := m["properties"]; !ok {
			return errors.New("schema root has no \"type\": set \"type\":\"object\"")
		}
	default:
		return fmt.Errorf("schema root type is %v: the root must be exactly \"object\"", t)
	}
	return nil
}

// Compile compiles raw (an object schema; draft 2020-12 unless it says
// otherwise) with format assertion on and remote references refused.
func Compile(raw json.RawMessage) (v *Validator, err error) {
	if err := CheckObject(raw); err != nil {
		return nil, err
	}
	if err := schemaValuesOK(raw); err != nil {
		return nil, err
	}
	defer func() {
		// The validator's compiler is not written for hostile schemas
		// (MCP servers send them): whatever it fails on is an error.
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("schema does not compile: the validator failed on it (%v): simplify the schema", r)
		}
	}()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.AssertContent = true
	c.Formats["regex"] = isRegex
	c.Formats["duration"] = isDuration
	c.Formats["period"] = isPeriod
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema refers to %q: remote references are not loaded; inline it under $defs", u)
	}
	url := fmt.Sprintf("mem://toolbelt/%d.json", seq.Add(1))
	if err := c.AddResource(url, bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("schema does not parse: %v", err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, compileError(err, url)
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return &Validator{schema: s, nulls: planNulls(m), raw: raw, anyObject: acceptsAnyObject(m)}, nil
}

// maxSchemaProblems is how many places a compile error lists.
const maxSchemaProblems = 5

// compileError is the compiler's err as one message, the same every time:
// a schema that breaks the meta-schema is told each place it does (its
// JSON pointer, sorted) and what is wrong there, the first reason the
// validator found for each. The validator's own message named one place,
// chosen by map order, through the meta-schema's keyword path.
func compileError(err error, url string) error {
	var se *jsonschema.SchemaError
	var ve *jsonschema.ValidationError
	if !errors.As(err, &se) || !errors.As(se.Err, &ve) {
		return fmt.Errorf("schema does not compile: %s", strings.ReplaceAll(err.Error(), url, "schema"))
	}
	first := map[string]string{} // instance location: its first leaf's message
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			if _, seen := first[e.InstanceLocation]; !seen {
				first[e.InstanceLocation] = e.Message
			}
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	locs := make([]string, 0, len(first))
	for loc := range first {
		locs = append(locs, loc)
	}
	sort.Strings(locs)
	var b strings.Builder
	b.WriteString("schema does not compile: ")
	for i, loc := range locs[:min(len(locs), maxSchemaProblems)] {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "at %s: %s", cmp.Or(loc, "the top"), first[loc])
	}
	if n := len(locs) - maxSchemaProblems; n > 0 {
		fmt.Fprintf(&b, "; and %d more places", n)
	}
	return errors.New(b.String())
}

// acceptsAnyObject reports whether the schema s is certain to accept every
// JSON object: type "object" and nothing else that constrains (annotations
// aside). It is conservative: any other keyword makes it false.
func acceptsAnyObject(s map[string]any) bool {
	if s["type"] != "object" {
		return false
	}
	for k, v := range s {
		switch k {
		case "type", "title", "description", "$comment", "$schema", "examples", "default", "deprecated", "readOnly", "writeOnly":
		case "properties":
			if p, ok := v.(map[string]any); !ok || len(p) != 0 {
				return false
			}
		case "required":
			if r, ok := v.([]any); !ok || len(r) != 0 {
				return false
			}
		case "additionalProperties":
			if b, ok := v.(bool); !ok || !b {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// Raw returns the schema the validator was compiled from.
func (v *Validator) Raw() json.RawMessage { return v.raw }

// DecodeError describes arguments that are not a JSON object.
type DecodeError struct{ Msg string }

func (e *DecodeError) Error() string { return e.Msg }

// CountValues returns a *DecodeError when data, JSON arguments, holds
// more than limit values (objects, arrays and the values in them, each
// member of an object counting its key too), counted from the text
// without decoding it: decoding and checking allocate some 450 bytes per
// value, whatever its size (1 MB of small integers cost 307 MB).
func CountValues(data []byte, limit int) error {
	n := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '{', '[', ',', ':':
			if n++; n > limit {
				return &DecodeError{Msg: fmt.Sprintf("arguments hold more than %d JSON values: send fewer values, or pass a reference (a path, a URL) to the data", limit)}
			}
		}
	}
	return nil
}

// Decode parses data as a JSON object with numbers kept exact.
func Decode(data []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, &DecodeError{Msg: "arguments are not valid JSON: " + err.Error() + ": send a JSON object such as {\"field\": \"value\"}"}
	}
	if d.More() {
		return nil, &DecodeError{Msg: "arguments hold more than one JSON value: send exactly one JSON object"}
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, &DecodeError{Msg: "arguments have trailing data after the JSON object: send exactly one JSON object"}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &DecodeError{Msg: fmt.Sprintf("arguments are a JSON %s: send a JSON object of named arguments", jsonKind(v))}
	}
	return m, nil
}

// AcceptsAnyObject reports whether the schema accepts every JSON object
// (the schema of a tool without arguments, or of one that takes any): then
// IsObject is all the validation arguments need.
func (v *Validator) AcceptsAnyObject() bool { return v.anyObject }

// IsObject reports whether data is exactly one valid JSON object (with
// optional surrounding white space), without decoding it.
func IsObject(data []byte) bool {
	i := 0
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i < len(data) && data[i] == '{' && json.Valid(data)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "value"
}

// StripNulls removes, in place, null values of optional properties whose
// schema does not accept null: OpenAI's strict mode makes a model send null
// for an omitted optional field, and null there means "absent". It reports
// whether anything was removed.
func (v *Validator) StripNulls(m map[string]any) bool {
	return v.nulls.stripMap(m)
}

// Validate checks a decoded value and returns a *FieldErrors naming every
// failing field, or nil. A value nested deeper than MaxDepth, or one whose
// check would take more than about a second of work (a schema whose
// alternatives refer back to themselves multiplies it at every level), is
// refused before it is checked, with the field where the bound was passed;
// so are a number a float64 reads as 0 though it is not 0 (1e-400), and a
// key that names a property in another case ("PATH" for "path"), which
// encoding/json would take for the property without its rules. A value
// with a number a float64 reads otherwise (0.99999999999999999999 reads
// as 1) must pass both as sent and as a float64 reads it; so must an
// integer past 2^53 (9007199254740995 reads as 9007199254740996) that a
// bound or multipleOf judges in a schema whose type does not
// say "integer" (an int64 or uint64 field reads it exactly).
func (v *Validator) Validate(val any) error {
	if v.anyObject {
		if _, ok := val.(map[string]any); ok {
			return nil
		}
	}
	// A number may pass as written and fail as a float64 holds it: then
	// the value is checked twice, and its cost counts twice.
	r, rounded := float64View(val)
	times := 1.0
	if rounded {
		times = 2
	}
	floatInts, err := checkCost(v.schema, val, times)
	if err != nil {
		return err
	}
	if len(floatInts) > 0 {
		if !rounded {
			// Checked twice after all: counted twice.
			r, times = val, 2
			if _, err := checkCost(v.schema, val, times); err != nil {
				return err
			}
		}
		if ri, ok := integerView(r, floatInts, len(floatInts) >= maxFloatInts); ok {
			r, rounded = ri, true
		}
	}
	err = v.schema.Validate(val)
	if err == nil {
		if rounded {
			if err := v.schema.Validate(r); err != nil {
				fe := v.fieldErrors(err)
				for i := range fe.Fields {
					fe.Fields[i].Rule += " (as a float64 reads the number sent, which is what a Go tool gets: send a number that a float64 holds within the bounds)"
				}
				return fe
			}
		}
		return nil
	}
	return v.fieldErrors(err)
}

// fieldErrors turns the validator's error into a *FieldErrors, values of
// secret fields hidden.
func (v *Validator) fieldErrors(err error) *FieldErrors {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &FieldErrors{Fields: []FieldError{{Path: "(root)", Rule: err.Error()}}}
	}
	fe := format(ve)
	for i := range fe.Fields {
		if v.hidden(fe.Fields[i].Path) {
			fe.Fields[i].Rule = hideValue(fe.Fields[i].Rule)
		}
	}
	return fe
}

// FieldError is one failing field.
type FieldError struct {
	// Path is the dotted path of the field ("near.city", "items[2].name"),
	// or "(root)".
	Path string
	// Rule says what the field broke, e.g. "required", "must be <= 50, got 80".
	Rule string
}

// MaxFieldErrors bounds how many failing fields an error names; past it,
// a last entry at "(root)" says how many more fail.
const MaxFieldErrors = 100

// FieldErrors is every failing field (at most MaxFieldErrors of them, and
// a count of the rest), sorted by path then rule.
type FieldErrors struct{ Fields []FieldError }

func (e *FieldErrors) Error() string {
	var b strings.Builder
	for i, f := range e.Fields {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Path)
		b.WriteString(": ")
		b.WriteString(f.Rule)
	}
	return b.String()
}

func format(ve *jsonschema.ValidationError) *FieldErrors {
	var out []FieldError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		out = append(out, leaf(e)...)
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Rule < out[j].Rule
	})
	// Drop exact duplicates (anyOf branches can report the same leaf).
	uniq := out[:0]
	for i, f := range out {
		if i > 0 && f == out[i-1] {
			continue
		}
		uniq = append(uniq, f)
	}
	if n := len(uniq) - MaxFieldErrors; n > 0 {
		uniq = append(uniq[:MaxFieldErrors], FieldError{Path: "(root)", Rule: fmt.Sprintf("and %d more fields fail: fix these and send again", n)})
	}
	return &FieldErrors{Fields: uniq}
}

func keyword(loc string) string {
	if i := strings.LastIndexByte(loc, '/'); i >= 0 {
		return loc[i+1:]
	}
	return loc
}

// leaf turns one validation failure into field errors with model-friendly text.
func leaf(e *jsonschema.ValidationError) []FieldError {
	path := pointerToPath(e.InstanceLocation)
	msg := e.Message
	switch kw := keyword(e.KeywordLocation); {
	case kw == "required" && strings.HasPrefix(msg, "missing properties: "):
		var fs []FieldError
		for _, n := range strings.Split(strings.TrimPrefix(msg, "missing properties: "), ", ") {
			fs = append(fs, FieldError{Path: joinPath(path, strings.Trim(n, "'")), Rule: "required"})
		}
		return fs
	case kw == "additionalProperties" && strings.HasPrefix(msg, "additionalProperties "):
		names := strings.TrimSuffix(strings.TrimPrefix(msg, "additionalProperties "), " not allowed")
		var fs []FieldError
		for _, n := range strings.Split(names, ", ") {
			fs = append(fs, FieldError{Path: joinPath(path, strings.Trim(n, "'")), Rule: "unknown field: remove it"})
		}
		return fs
	case kw == "type":
		msg = strings.Replace(strings.Replace(msg, "expected ", "must be ", 1), ", but got ", ", got ", 1)
	case kw == "enum":
		msg = strings.TrimPrefix(msg, "value ")
		// An enum of thousands of values would be quoted whole for
		// every wrong field.
		if i := strings.LastIndex(msg[:min(len(msg), maxEnumQuote)], ", "); len(msg) > maxEnumQuote && i > 0 {
			msg = msg[:i] + ", ... (the list goes on in the schema)"
		}
	case kw == "format":
		msg = "must be a valid " + strings.Trim(msg[strings.LastIndex(msg, " ")+1:], "'")
	default:
		msg = strings.Replace(msg, ", but found ", ", got ", 1)
		msg = strings.Replace(msg, ", but got ", ", got ", 1)
		msg = strings.Replace(msg, " but found ", ", got ", 1)
	}
	return []FieldError{{Path: path, Rule: msg}}
}

// maxEnumQuote bounds how much of an enum's list a rule quotes.
const maxEnumQuote = 200

// emptyName is how a path shows the key "" (a model may send one), which
// would otherwise leave no name at all: ": unknown field".
const emptyName = `""`

func joinPath(base, name string) string {
	if name == "" {
		name = emptyName
	}
	if base == "(root)" {
		return name
	}
	return base + "." + name
}

// pointerToPath turns "/near/items/2/city" into "near.items[2].city".
func pointerToPath(p string) string {
	if p == "" || p == "/" {
		return "(root)"
	}
	var b strings.Builder
	for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		if seg == "" {
			seg = emptyName
		}
		if isIndex(seg) {
			b.WriteString("[" + seg + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// nullPlan records, per object schema, which properties may have their
// nulls stripped, and how to descend into nested objects and arrays.
type nullPlan struct {
	drop  map[string]bool      // optional properties that do not accept null
	props map[string]*nullPlan // nested objects / arrays
	items *nullPlan
}

func planNulls(s map[string]any) *nullPlan {
	if s == nil {
		return nil
	}
	p := &nullPlan{}
	if it, ok := s["items"].(map[string]any); ok {
		p.items = planNulls(it)
	}
	props, _ := s["properties"].(map[string]any)
	if len(props) > 0 {
		req := map[string]bool{}
		if rl, ok := s["required"].([]any); ok {
			for _, r := range rl {
				if n, ok := r.(string); ok {
					req[n] = true
				}
			}
		}
		for name, ps := range props {
			sub, _ := ps.(map[string]any)
			if !req[name] && !acceptsNull(sub) {
				if p.drop == nil {
					p.drop = map[string]bool{}
				}
				p.drop[name] = true
			}
			if sp := planNulls(sub); sp != nil && (sp.drop != nil || sp.props != nil || sp.items != nil) {
				if p.props == nil {
					p.props = map[string]*nullPlan{}
				}
				p.props[name] = sp
			}
		}
	}
	if p.drop == nil && p.props == nil && p.items == nil {
		return nil
	}
	return p
}

// acceptsNull is conservative: anything it cannot see through counts as
// accepting null, so a null is never stripped where it might mean something.
func acceptsNull(s map[string]any) bool {
	if s == nil {
		return true // true schema or unknown shape
	}
	if _, ok := s["$ref"]; ok {
		return true
	}
	switch t := s["type"].(type) {
	case string:
		if t == "null" {
			return true
		}
	case []any:
		for _, x := range t {
			if x == "null" {
				return true
			}
		}
	case nil:
		if _, ok := s["enum"]; !ok {
			if _, ok := s["const"]; !ok {
				for _, k := range []string{"anyOf", "oneOf"} {
					if alts, ok := s[k].([]any); ok {
						for _, a := range alts {
							if am, _ := a.(map[string]any); acceptsNull(am) {
								return true
							}
						}
						return false
					}
				}
				return true // no type: anything goes
			}
		}
	}
	if e, ok := s["enum"].([]any); ok {
		for _, x := range e {
			if x == nil {
				return true
			}
		}
	}
	if c, ok := s["const"]; ok && c == nil {
		return true
	}
	if b, ok := s["nullable"].(bool); ok && b {
		return true
	}
	return false
}

func (p *nullPlan) stripMap(m map[string]any) bool {
	if p == nil {
		return false
	}
	changed := false
	for k, val := range m {
		if val == nil {
			if p.drop[k] {
				delete(m, k)
				changed = true
			}
			continue
		}
		sub := p.props[k]
		if sub == nil {
			continue
		}
		changed = sub.stripValue(val) || changed
	}
	return changed
}

func (p *nullPlan) stripValue(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return p.stripMap(x)
	case []any:
		if p.items == nil {
			return false
		}
		changed := false
		for _, it := range x {
			changed = p.items.stripValue(it) || changed
		}
		return changed
	}
	return false
}
