package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
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
// linter refuses the same bounds on a float32 field (isFloat32). Under
// not, or in an if's condition, where the schema accepts a value that
// fails a subschema, rounding crosses any bound, const, enum or
// multipleOf (not minimum 1 passed 0.99999999, read as 1; minimum 0 and
// not const 0 passed 1e-50, read as 0): each is reported there. The
// schema's properties, items, contains, additionalProperties,
// patternProperties and unevaluated ones are followed, and the subschemas
// they apply in place ($ref, allOf, anyOf, oneOf, if, then, else, not,
// dependentSchemas, $dynamicRef and $recursiveRef taken as the $ref they
// name); property names match as encoding/json matches them, in any
// case. A ref this check cannot follow (by anchor, by $id) applied where
// a float32 lies is reported too: its bounds are unknown here (an
// anchor's exclusiveMinimum 0 passed 1e-50, read as 0). (A oneOf whose
// branches overlap also accepts a value for failing one of them: not
// reported, as oneOf is mostly written with branches apart.)
func Float32Bounds(t reflect.Type, inputSchema json.RawMessage) error {
	var root map[string]any
	if json.Unmarshal(inputSchema, &root) != nil {
		return nil // Compile says what is wrong with it
	}
	c := float32Check{w: schemaWalk{root: root}, seen: map[string]bool{}}
	c.check(t, root, "", false)
	if len(c.errs) == 0 {
		return nil
	}
	sort.Strings(c.errs)
	return fmt.Errorf("%s", strings.Join(slices.Compact(c.errs), "; "))
}

// CaseTwinFields reports, for a Go type t decoded with encoding/json from
// arguments a hand-written inputSchema checks, each struct field whose
// name the schema gives as properties in two cases (one properties
// naming path and Path, or allOf members, or a $ref beside them) when t
// has no field of its own for one of them. The validator checks each key
// under its own name's rules, and neither is a case twin of an undeclared
// property (caseTwin), but encoding/json reads every key that matches a
// field's name in any case into that field when no field has the key's
// exact name: allOf [{path: pattern ^/ok}, {Path: string}] passed
// {"Path":"/etc/passwd"} and a tool with only a path field ran with it.
// A schema that names a field in one case only is not reported: a key
// in another case is refused at call time. A ref this check cannot
// follow (by anchor, by $id) applied to an object a struct is decoded
// from is reported: the names it declares are unknown here.
func CaseTwinFields(t reflect.Type, inputSchema json.RawMessage) error {
	var root map[string]any
	if json.Unmarshal(inputSchema, &root) != nil {
		return nil // Compile says what is wrong with it
	}
	c := float32Check{w: schemaWalk{root: root}, seen: map[string]bool{}, twins: true}
	c.check(t, root, "", false)
	if len(c.errs) == 0 {
		return nil
	}
	sort.Strings(c.errs)
	return fmt.Errorf("%s", strings.Join(slices.Compact(c.errs), "; "))
}

// float32Check is one run of Float32Bounds, or of CaseTwinFields (twins).
type float32Check struct {
	w     schemaWalk // resolves local $refs
	errs  []string
	seen  map[string]bool // type, subschema and place already checked
	steps int
	twins bool // report fields named in two cases, not float32 bounds
	// lost are the refs of the node being checked that resolve does not
	// follow (by anchor, by $id).
	lost []string
}

// holdsFloat32 reports whether a value of type t holds a float32: itself,
// or through pointers, lists, arrays, maps and struct fields. seen holds
// the types already visited (nil to start): each is visited once, so a
// recursive type is no exponential walk.
func holdsFloat32(t reflect.Type, seen map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if seen == nil {
		seen = map[reflect.Type]bool{}
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Float32:
		return true
	case reflect.Slice, reflect.Array, reflect.Map:
		return holdsFloat32(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); (f.IsExported() || f.Anonymous) && f.Tag.Get("json") != "-" && holdsFloat32(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// twinFields reports the fields of the struct t whose JSON name schemas
// (applied to it together) give in another case too, where t has no
// field of that exact name: encoding/json reads that key into the field.
func (c *float32Check) twinFields(t reflect.Type, schemas []map[string]any, at string) {
	declared := map[string]bool{}
	for _, s := range schemas {
		if props, ok := s["properties"].(map[string]any); ok {
			for k := range props {
				declared[k] = true
			}
		}
	}
	names := map[string]bool{}
	jsonFields(t, func(name string, _ reflect.Type) { names[name] = true })
	for n := range names {
		var other []string
		for k := range declared {
			if k != n && !names[k] && strings.EqualFold(k, n) {
				other = append(other, strconv.Quote(k))
			}
		}
		// One other spelling alone is the field's only declared name: a
		// key spelt as the field is then refused as its case twin.
		if len(other) > 1 || (len(other) == 1 && declared[n]) {
			sort.Strings(other)
			c.errs = append(c.errs, fmt.Sprintf("field %s: the input schema names it %q and also %s, each under rules of its own, and encoding/json reads a key of any of these names into this one field: name the property once, or give the Go type a field of each name", join(at, n), n, strings.Join(other, " and ")))
		}
		if !declared[n] {
			c.patternTwins(schemas, names, n, at)
		}
	}
}

// patternTwins reports the field of JSON name n when a patternProperties
// of schemas matches n but not n spelt in another case (foldVariants),
// which no schema refuses: such a key passes without the pattern's rules
// (the case-twin check reads properties only), and encoding/json reads it
// into the field. "^path$" passed {"Path":"/etc/passwd"}.
func (c *float32Check) patternTwins(schemas []map[string]any, names map[string]bool, n, at string) {
	for _, s := range schemas {
		pats, _ := s["patternProperties"].(map[string]any)
		for pat := range pats {
			re, err := regexp.Compile(pat)
			if err != nil || !re.MatchString(n) {
				continue
			}
			for _, v := range foldVariants(n) {
				if names[v] || re.MatchString(v) || refuses(s, v) {
					continue
				}
				c.errs = append(c.errs, fmt.Sprintf("field %s: the input schema's patternProperties %q matches %q but not %q, which encoding/json reads into this field too, and which passes without the pattern's rules: make the pattern match any case ((?i)), or name the property in properties", join(at, n), pat, n, v))
				return
			}
		}
	}
}

// foldVariants returns n spelt in other cases as encoding/json matches
// them: all upper, all lower, and each letter alone in each other case of
// its fold orbit (ſ for s, the Kelvin sign for k).
func foldVariants(n string) []string {
	out := []string{strings.ToUpper(n), strings.ToLower(n)}
	rs := []rune(n)
	for i, r := range rs {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			v := slices.Clone(rs)
			v[i] = f
			out = append(out, string(v))
		}
		if len(out) > 256 {
			break
		}
	}
	return slices.DeleteFunc(out, func(v string) bool { return v == n })
}

// refuses reports whether s refuses an object holding key: no property
// or pattern of s names it, and s's additionalProperties is false.
func refuses(s map[string]any, key string) bool {
	if s["additionalProperties"] != false {
		return false
	}
	if props, ok := s["properties"].(map[string]any); ok {
		if _, ok := props[key]; ok {
			return false
		}
	}
	pats, _ := s["patternProperties"].(map[string]any)
	for pat := range pats {
		if re, err := regexp.Compile(pat); err != nil || re.MatchString(key) {
			return false
		}
	}
	return true
}

// valueKeys are the keywords that judge a number by its value. Under not,
// or as an if's condition, a float32's rounding crosses each of them: not
// minimum 1 is below 1 (0.99999999 reads as 1), not const 0 is any number
// but 0 (1e-50 reads as 0).
var valueKeys = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "const", "enum", "multipleOf"}

// inPlace returns node and the subschemas it applies to the value in place
// ($ref, allOf, anyOf, oneOf, then, else, dependentSchemas, dependencies),
// and the subschemas whose failure they accept (not, if).
func (c *float32Check) inPlace(node map[string]any) (out, negated []map[string]any) {
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
		for _, k := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
			// A $dynamicRef or $recursiveRef is taken as the $ref it
			// names; one by anchor or $id cannot be followed here.
			if ref, ok := m[k].(string); ok {
				if r, ok := c.w.resolve(ref); ok {
					add(r)
				} else if !slices.Contains(c.lost, ref) {
					c.lost = append(c.lost, ref)
				}
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
		for _, k := range []string{"then", "else"} {
			sm, _ := m[k].(map[string]any)
			add(sm)
		}
		for _, k := range []string{"dependentSchemas", "dependencies"} {
			if deps, ok := m[k].(map[string]any); ok {
				for _, d := range deps {
					dm, _ := d.(map[string]any) // a list of names applies none
					add(dm)
				}
			}
		}
		for _, k := range []string{"not", "if"} {
			if sm, _ := m[k].(map[string]any); sm != nil && len(negated) < maxDeclaredLook {
				negated = append(negated, sm)
			}
		}
	}
	add(node)
	return out, negated
}

// check looks for exclusive bounds on float32s in t, decoded from the
// value node is applied to, at (a path as messages show it). Under neg
// (node is, or lies within, a not or an if), any bound, const, enum or
// multipleOf on a float32 counts.
func (c *float32Check) check(t reflect.Type, node map[string]any, at string, neg bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if node == nil || c.steps >= maxNestedSteps {
		return
	}
	key := fmt.Sprintf("%v\x00%x\x00%s\x00%t", t, reflect.ValueOf(node).Pointer(), at, neg)
	if c.seen[key] || len(at) > 1024 {
		return
	}
	c.seen[key] = true
	c.steps++
	c.lost = c.lost[:0]
	schemas, negated := c.inPlace(node)
	switch {
	case len(c.lost) == 0:
	case c.twins && t.Kind() == reflect.Struct && !neg:
		// The names declared there are unknown: an anchor's Path beside
		// path passed {"Path":"/etc/passwd"}, read into path.
		c.errs = append(c.errs, fmt.Sprintf("object %s: the input schema applies %s to it, which this check cannot follow to see which property names it declares (a field declared in two cases lets encoding/json read one key into the other's field): refer with a JSON pointer (\"#/$defs/name\")", nonEmpty(at), strings.Join(c.lost, " and ")))
	case !c.twins && holdsFloat32(t, nil):
		// The bounds there are unknown: an anchor's exclusiveMinimum
		// passed 1e-50, read as 0.
		c.errs = append(c.errs, fmt.Sprintf("field %s: a float32 lies here, and the input schema applies %s to it, which this check cannot follow to see whether it puts an exclusive bound on the float32 (which rounding crosses): refer with a JSON pointer (\"#/$defs/name\"), or make the field a float64", nonEmpty(at), strings.Join(c.lost, " and ")))
	}
	switch t.Kind() {
	case reflect.Float32:
		if c.twins {
			break
		}
		keys := exclusiveBounds
		if neg {
			keys = valueKeys
		}
		var found []string
		for _, k := range keys {
			for _, s := range schemas {
				// A number, or true beside a bound (draft 4); false is
				// no bound.
				if b, ok := s[k]; ok && b != false {
					found = append(found, k)
					break
				}
			}
		}
		switch {
		case len(found) > 0 && neg:
			c.errs = append(c.errs, fmt.Sprintf("field %s: a float32 rounds the number sent (1e-50 reads as 0, 0.99999999 as 1), across the %s the input schema checks exactly under not or as an if's condition (not minimum 1 reads 0.99999999 as 1, not const 0 reads 1e-50 as 0): make it a float64, or say it with minimum or maximum outside not and if", nonEmpty(at), strings.Join(found, " and ")))
		case len(found) > 0:
			c.errs = append(c.errs, fmt.Sprintf("field %s: a float32 rounds the number sent (1e-50 reads as 0, 0.99999999 as 1), onto the %s the input schema checks exactly: make it a float64, or use minimum or maximum", nonEmpty(at), strings.Join(found, " and ")))
		}
	case reflect.Slice, reflect.Array:
		for _, s := range schemas {
			// contains and unevaluatedItems judge items too: contains
			// exclusiveMinimum 0 passed [1e-50], read as [0].
			for _, k := range []string{"items", "prefixItems", "additionalItems", "contains", "unevaluatedItems"} {
				switch it := s[k].(type) {
				case map[string]any:
					c.check(t.Elem(), it, at+"[]", neg)
				case []any:
					for _, x := range it {
						xm, _ := x.(map[string]any)
						c.check(t.Elem(), xm, at+"[]", neg)
					}
				}
			}
		}
	case reflect.Map:
		for _, s := range schemas {
			c.values(s, func(_ string, sub map[string]any) { c.check(t.Elem(), sub, at+"{}", neg) })
		}
	case reflect.Struct:
		if c.twins && !neg {
			c.twinFields(t, schemas, at)
		}
		c.fields(t, schemas, at, neg)
	}
	if c.twins {
		return // a not or an if decides nothing a decoder reads
	}
	for _, n := range negated {
		c.check(t, n, at, true)
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
	for _, k := range []string{"additionalProperties", "unevaluatedProperties"} {
		ap, _ := s[k].(map[string]any)
		fn("", ap)
	}
}

// fields checks the fields of the struct t against the subschemas
// schemas apply to its properties.
func (c *float32Check) fields(t reflect.Type, schemas []map[string]any, at string, neg bool) {
	jsonFields(t, func(name string, ft reflect.Type) {
		for _, s := range schemas {
			c.field(ft, s, name, join(at, name), neg)
		}
	})
}

// jsonFields calls fn with the JSON name and type of each field of the
// struct t as encoding/json decodes it: embedded structs' fields
// promoted, each embedded type expanded once (a struct may embed a
// pointer to itself: expanded without end, it overflowed the stack).
func jsonFields(t reflect.Type, fn func(name string, ft reflect.Type)) {
	seen := map[reflect.Type]bool{t: true}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
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
					if !seen[et] {
						seen[et] = true
						walk(et)
					}
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fn(name, f.Type)
		}
	}
	walk(t)
}

// field checks the Go field type t, of JSON name name, against the
// subschemas s applies to the property: properties of that name in any
// case (encoding/json takes any of them for it), patternProperties that
// match it, additionalProperties when neither names it exactly, and
// unevaluatedProperties (which may judge it whatever names it).
func (c *float32Check) field(t reflect.Type, s map[string]any, name, at string, neg bool) {
	named := false
	if props, ok := s["properties"].(map[string]any); ok {
		for prop, p := range props {
			if strings.EqualFold(prop, name) {
				named = named || prop == name
				pm, _ := p.(map[string]any)
				c.check(t, pm, at, neg)
			}
		}
	}
	if pats, ok := s["patternProperties"].(map[string]any); ok {
		for pat, p := range pats {
			if re, err := regexp.Compile(pat); err != nil || re.MatchString(name) {
				named = true
				pm, _ := p.(map[string]any)
				c.check(t, pm, at, neg)
			}
		}
	}
	if !named {
		ap, _ := s["additionalProperties"].(map[string]any)
		c.check(t, ap, at, neg)
	}
	up, _ := s["unevaluatedProperties"].(map[string]any)
	c.check(t, up, at, neg)
}
