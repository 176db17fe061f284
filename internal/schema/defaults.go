package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Defaults are the values an object schema gives its properties
// ("default"), and the defaults of its object properties' own properties:
// registry.Entry.CheckArgs fills them in where the arguments leave them
// out, so a tool runs with what the model was shown. Only "properties" are
// read: a $ref'd subschema, allOf/anyOf/oneOf branches, and array items
// are not followed, so their defaults are not filled.
type Defaults struct {
	values map[string]json.RawMessage
	inner  map[string]*Defaults
}

// propSchema is the part of a schema defaultsOf reads.
type propSchema struct {
	Default    json.RawMessage       `json:"default"`
	Properties map[string]propSchema `json:"properties"`
}

// DefaultsOf reads the defaults of an object schema; nil when it has none.
func DefaultsOf(raw json.RawMessage) *Defaults {
	var s propSchema
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return s.defaults()
}

func (s *propSchema) defaults() *Defaults {
	var d Defaults
	for name, p := range s.Properties {
		if p.Default != nil {
			if d.values == nil {
				d.values = map[string]json.RawMessage{}
			}
			d.values[name] = p.Default
		}
		if in := p.defaults(); in != nil {
			if d.inner == nil {
				d.inner = map[string]*Defaults{}
			}
			d.inner[name] = in
		}
	}
	if d.values == nil && d.inner == nil {
		return nil
	}
	return &d
}

// Fill sets in m the defaults it leaves out, then those of the objects it
// holds, and returns the dotted paths it set (under prefix). Each call
// decodes its own copies (numbers as json.Number, as Decode reads them).
func (d *Defaults) Fill(m map[string]any, prefix string) []string {
	if d == nil {
		return nil
	}
	var set []string
	for k, in := range d.inner {
		if o, ok := m[k].(map[string]any); ok {
			set = append(set, in.Fill(o, prefix+k+".")...)
		}
	}
	for k, raw := range d.values {
		if _, ok := m[k]; ok {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // as Decode reads the model's numbers
		var v any
		if dec.Decode(&v) == nil {
			m[k] = v
			set = append(set, prefix+k)
		}
	}
	return set
}

// MaxDefaultBytes bounds the encoded size of a schema's defaults, all
// together: they are decoded into the arguments of every call that leaves
// them out, after the executor's argument limit was checked.
const MaxDefaultBytes = 64 << 10

// size is the encoded size of the defaults, nested ones included.
func (d *Defaults) size() int {
	if d == nil {
		return 0
	}
	n := 0
	for _, raw := range d.values {
		n += len(raw)
	}
	for _, in := range d.inner {
		n += in.size()
	}
	return n
}

// Check reports defaults over MaxDefaultBytes, and a default that breaks
// its own property's schema (in, the compiled schema the defaults were
// read from): the arguments of a call that leaves it out would fail at a
// field the model never sent.
func (d *Defaults) Check(in *Validator) error {
	if d == nil {
		return nil
	}
	if n := d.size(); n > MaxDefaultBytes {
		return fmt.Errorf("input schema: its defaults are %d bytes, over the %d-byte limit (they are copied into every call that leaves them out): shorten them, or drop the large ones", n, MaxDefaultBytes)
	}
	m := map[string]any{}
	set := d.Fill(m, "")
	var fe *FieldErrors
	if !errors.As(in.Validate(m), &fe) {
		return nil
	}
	var bad []string
	for _, f := range fe.Fields {
		for _, p := range set {
			if f.Path == p || strings.HasPrefix(f.Path, p+".") || strings.HasPrefix(f.Path, p+"[") {
				bad = append(bad, f.Path+": "+f.Rule)
				break
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("input schema: a default breaks its own property's schema (%s): fix the default, or the rule", strings.Join(bad, "; "))
}
