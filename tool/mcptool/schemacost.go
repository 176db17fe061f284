package mcptool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// maxExpandedSchema bounds a schema's subschemas counted with every $ref
// followed: a few dozen definitions that each refer to the next twice are
// small as written (and pass maxSchemaNodes) but 2^levels schemas to
// validate against on every call, and to write out for a provider that
// inlines $refs. Real schemas that share definitions stay in the hundreds.
const maxExpandedSchema = 10 * maxSchemaNodes

// expandedSize counts the subschemas of raw with every $ref followed, as
// validating a value evaluates them: a definition referred to twice counts
// twice, and a $ref back into a schema being counted (recursion, whose
// cost follows the value's depth) counts once. The count stops just past
// maxExpandedSchema.
func expandedSize(raw json.RawMessage) (int, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("remote reference %q", u)
	}
	const url = "mem://mcptool/schema.json"
	if err := c.AddResource(url, bytes.NewReader(raw)); err != nil {
		return 0, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return 0, err
	}
	w := sizeWalk{memo: map[*jsonschema.Schema]int{}, open: map[*jsonschema.Schema]bool{}}
	return w.size(s), nil
}

// expandedBounded refuses a schema whose expanded size is over
// maxExpandedSchema.
func expandedBounded(raw json.RawMessage) error {
	n, err := expandedSize(raw)
	if err != nil {
		return err
	}
	if n > maxExpandedSchema {
		return fmt.Errorf("the schema has more than %d subschemas once its $refs are followed (definitions that refer to others more than once, level after level): validating every call against it would take too long", maxExpandedSchema)
	}
	return nil
}

type sizeWalk struct {
	memo map[*jsonschema.Schema]int
	open map[*jsonschema.Schema]bool
}

// size is 1 for s plus the sizes of the schemas it applies, saturating
// at maxExpandedSchema+1.
func (w *sizeWalk) size(s *jsonschema.Schema) int {
	if s == nil {
		return 0
	}
	if n, ok := w.memo[s]; ok {
		return n
	}
	if w.open[s] {
		return 1
	}
	w.open[s] = true
	n := 1
	add := func(c *jsonschema.Schema) { n = min(n+w.size(c), maxExpandedSchema+1) }
	addAny := func(v any) {
		switch x := v.(type) {
		case *jsonschema.Schema:
			add(x)
		case []*jsonschema.Schema:
			for _, c := range x {
				add(c)
			}
		}
	}
	for _, c := range []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.DynamicRef, s.Not, s.If, s.Then, s.Else,
		s.PropertyNames, s.UnevaluatedProperties, s.Items2020, s.Contains, s.UnevaluatedItems, s.ContentSchema} {
		add(c)
	}
	for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
		for _, c := range l {
			add(c)
		}
	}
	for _, c := range s.Properties {
		add(c)
	}
	for _, c := range s.PatternProperties {
		add(c)
	}
	for _, c := range s.DependentSchemas {
		add(c)
	}
	for _, d := range s.Dependencies {
		addAny(d)
	}
	addAny(s.AdditionalProperties)
	addAny(s.Items)
	addAny(s.AdditionalItems)
	delete(w.open, s)
	w.memo[s] = n
	return n
}
