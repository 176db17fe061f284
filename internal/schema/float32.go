package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// exclusiveBounds are the keywords a float32's rounding crosses.
var exclusiveBounds = []string{"exclusiveMinimum", "exclusiveMaximum"}

// Float32Bounds reports, for a Go type t decoded with encoding/json from
// arguments a hand-written inputSchema checks, each float32 field (through
// pointers, lists, arrays and maps) that the schema bounds with
// exclusiveMinimum or exclusiveMaximum. encoding/json rounds a number
// into a float32 (strconv.ParseFloat(s, 32)) while the validator checks it
// exactly, and Validate cannot tell a float32 field from a float64 one:
// 0.99999999 passed exclusiveMaximum 1 and the tool ran with 1, 1e-50
// passed exclusiveMinimum 0 and it ran with 0. The reflected schema's
// linter refuses the same bounds on a float32 field (isFloat32). The
// schema's properties, items, additionalProperties and patternProperties
// are followed, and the subschemas they apply in place ($ref, allOf,
// anyOf, oneOf, if, then, else); property names match as encoding/json
// matches them, in any case.
func Float32Bounds(t reflect.Type, inputSchema json.RawMessage) error {
	var root map[string]any
	if json.Unmarshal(inputSchema, &root) != nil {
		return nil // Compile says what is wrong with it
	}
	c := float32Check{w: schemaWalk{root: root}, seen: map[string]bool{}}
	c.check(t, root, "")
	if len(c.errs) == 0 {
		return nil
	}
	sort.Strings(c.errs)
	return fmt.Errorf("%s", strings.Join(slices.Compact(c.errs), "; "))
}

// float32Check is one run of Float32Bounds.
type float32Check struct {
	w     schemaWalk // resolves local $refs
	errs  []string
	seen  map[string]bool // type, subschema and place already checked
	steps int
}

// inPlace returns node and the subschemas it applies to the value in place.
func (c *float32Check) inPlace(node map[string]any) []map[string]any {
	var out []map[string]any
	seen := map[uintptr]bool{}
	var add func(m map[string]any)
	add = func(m map[string]any) {
		if m == nil || len(out) >= maxDeclaredLook {
			return
		}
		p := reflect.ValueOf(m).Pointer()
		if seen[p] {
			return
		}
		seen[p] = true
		out = append(out, m)
		if ref, ok := m["$ref"].(string); ok {
			if r, ok := c.w.resolve(ref); ok {
				add(r)
			}
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			if l, ok := m[k].([]any); ok {
				for _, s := range l {
					sm, _ := s.(map[string]any)
					add(sm)
				}
			}
		}
		for _, k := range []string{"if", "then", "else"} {
			sm, _ := m[k].(map[string]any)
			add(sm)
		}
	}
	add(node)
	return out
}

// check looks for exclusive bounds on float32s in t, decoded from the
// value node is applied to, at (a path as messages show it).
func (c *float32Check) check(t reflect.Type, node map[string]any, at string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if node == nil || c.steps >= maxNestedSteps {
		return
	}
	key := fmt.Sprintf("%v\x00%x\x00%s", t, reflect.ValueOf(node).Pointer(), at)
	if c.seen[key] || len(at) > 1024 {
		return
	}
	c.seen[key] = true
	c.steps++
	schemas := c.inPlace(node)
	switch t.Kind() {
	case reflect.Float32:
		var found []string
		for _, k := range exclusiveBounds {
			for _, s := range schemas {
				// A number, or true beside a bound (draft 4); false is
				// no bound.
				if b, ok := s[k]; ok && b != false {
					found = append(found, k)
					break
				}
			}
		}
		if len(found) > 0 {
			c.errs = append(c.errs, fmt.Sprintf("field %s: a float32 rounds the number sent (1e-50 reads as 0, 0.99999999 as 1), onto the %s the input schema checks exactly: make it a float64, or use minimum or maximum", nonEmpty(at), strings.Join(found, " and ")))
		}
	case reflect.Slice, reflect.Array:
		for _, s := range schemas {
			switch it := s["items"].(type) {
			case map[string]any:
				c.check(t.Elem(), it, at+"[]")
			case []any:
				for _, x := range it {
					xm, _ := x.(map[string]any)
					c.check(t.Elem(), xm, at+"[]")
				}
			}
			for _, k := range []string{"prefixItems", "additionalItems"} {
				switch it := s[k].(type) {
				case map[string]any:
					c.check(t.Elem(), it, at+"[]")
				case []any:
					for _, x := range it {
						xm, _ := x.(map[string]any)
						c.check(t.Elem(), xm, at+"[]")
					}
				}
			}
		}
	case reflect.Map:
		for _, s := range schemas {
			c.values(s, func(_ string, sub map[string]any) { c.check(t.Elem(), sub, at+"{}") })
		}
	case reflect.Struct:
		c.fields(t, schemas, at)
	}
}

// values calls fn with each subschema s applies to an object's values.
func (c *float32Check) values(s map[string]any, fn func(name string, sub map[string]any)) {
	for _, k := range []string{"properties", "patternProperties"} {
		if props, ok := s[k].(map[string]any); ok {
			for name, p := range props {
				pm, _ := p.(map[string]any)
				if k == "patternProperties" {
					name = "" // any name
				}
				fn(name, pm)
			}
		}
	}
	ap, _ := s["additionalProperties"].(map[string]any)
	fn("", ap)
}

// fields checks the fields of the struct t against the subschemas
// schemas apply to its properties.
func (c *float32Check) fields(t reflect.Type, schemas []map[string]any, at string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && !strings.HasPrefix(f.Tag.Get("json"), "-,") {
			continue
		}
		if f.Anonymous && name == "" {
			et := f.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				c.fields(et, schemas, at)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		for _, s := range schemas {
			c.field(f.Type, s, name, join(at, name))
		}
	}
}

// field checks the Go field type t, of JSON name name, against the
// subschemas s applies to the property: properties of that name in any
// case (encoding/json takes any of them for it), patternProperties that
// match it, and additionalProperties when neither names it exactly.
func (c *float32Check) field(t reflect.Type, s map[string]any, name, at string) {
	named := false
	if props, ok := s["properties"].(map[string]any); ok {
		for prop, p := range props {
			if strings.EqualFold(prop, name) {
				named = named || prop == name
				pm, _ := p.(map[string]any)
				c.check(t, pm, at)
			}
		}
	}
	if pats, ok := s["patternProperties"].(map[string]any); ok {
		for pat, p := range pats {
			if re, err := regexp.Compile(pat); err != nil || re.MatchString(name) {
				named = true
				pm, _ := p.(map[string]any)
				c.check(t, pm, at)
			}
		}
	}
	if !named {
		ap, _ := s["additionalProperties"].(map[string]any)
		c.check(t, ap, at)
	}
}
