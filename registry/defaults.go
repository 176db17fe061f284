package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/schema"
)

// defaults are the values an object schema gives its properties
// ("default"), and the defaults of its object properties' own properties:
// CheckArgs fills them in where the arguments leave them out, so a tool
// runs with what the model was shown. A $ref'd subschema is not followed.
type defaults struct {
	values map[string]json.RawMessage
	inner  map[string]*defaults
}

// propSchema is the part of a schema defaultsOf reads.
type propSchema struct {
	Default    json.RawMessage       `json:"default"`
	Properties map[string]propSchema `json:"properties"`
}

// defaultsOf reads the defaults of an object schema; nil when it has none.
func defaultsOf(raw json.RawMessage) *defaults {
	var s propSchema
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return s.defaults()
}

func (s *propSchema) defaults() *defaults {
	var d defaults
	for name, p := range s.Properties {
		if p.Default != nil {
			if d.values == nil {
				d.values = map[string]json.RawMessage{}
			}
			d.values[name] = p.Default
		}
		if in := p.defaults(); in != nil {
			if d.inner == nil {
				d.inner = map[string]*defaults{}
			}
			d.inner[name] = in
		}
	}
	if d.values == nil && d.inner == nil {
		return nil
	}
	return &d
}

// fill sets in m the defaults it leaves out, then those of the objects it
// holds, and returns the dotted paths it set (under prefix).
func (d *defaults) fill(m map[string]any, prefix string) []string {
	var set []string
	for k, in := range d.inner {
		if o, ok := m[k].(map[string]any); ok {
			set = append(set, in.fill(o, prefix+k+".")...)
		}
	}
	for k, raw := range d.values {
		if _, ok := m[k]; ok {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // as schema.Decode reads the model's numbers
		var v any
		if dec.Decode(&v) == nil {
			m[k] = v
			set = append(set, prefix+k)
		}
	}
	return set
}

// check reports a default that breaks its own schema: the arguments of a
// call that leaves it out would fail at a field the model never sent.
func (d *defaults) check(in *schema.Validator) error {
	m := map[string]any{}
	set := d.fill(m, "")
	var fe *schema.FieldErrors
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
