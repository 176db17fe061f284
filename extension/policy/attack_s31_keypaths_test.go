package policy_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A path argument declared where NestedPaths does not read it: under
// patternProperties ("^dir$"), propertyNames or unevaluatedProperties, at
// the root or inside an object, or reached from them by a $ref. A path
// there under forbidden_paths must not run unjudged: the call is refused
// (the schema's paths cannot all be read) or the path is judged. A path
// under additionalProperties is read and judged.
func TestAttackS31PathsDeclaredUnderKeyKeywords(t *testing.T) {
	p, err := policy.Parse([]byte("global:\n  forbidden_paths: [\"/etc/**\"]\n"))
	require.NoError(t, err)
	eval := func(schema, args string) error {
		spec := tool.Spec{Name: "cp", InputSchema: json.RawMessage(schema)}
		_, err := p.Evaluate("", &spec, json.RawMessage(args))
		return err
	}
	for schema, args := range map[string]string{
		`{"type":"object","patternProperties":{"^dir$":{"type":"string","x-toolbelt-path":true}}}`:                                                         `{"dir":"/etc/shadow"}`,
		`{"type":"object","properties":{"dir":{"type":"string"}},"patternProperties":{"^dir$":{"type":"string","x-toolbelt-path":true}}}`:                  `{"dir":"/etc/shadow"}`,
		`{"type":"object","properties":{"o":{"type":"object","patternProperties":{"^dir$":{"$ref":"#/$defs/p"}}}},"$defs":{"p":{"x-toolbelt-path":true}}}`: `{"o":{"dir":"/etc/shadow"}}`,
		`{"type":"object","propertyNames":{"type":"string","x-toolbelt-path":true}}`:                                                                       `{"/etc/shadow":1}`,
		`{"type":"object","unevaluatedProperties":{"type":"string","x-toolbelt-path":true}}`:                                                               `{"dir":"/etc/shadow"}`,
		`{"type":"object","additionalProperties":{"type":"string","x-toolbelt-path":true}}`:                                                                `{"dir":"/etc/shadow"}`,
		`{"type":"object","properties":{"o":{"type":"object","additionalProperties":{"type":"string","x-toolbelt-path":true}}}}`:                           `{"o":{"dir":"/etc/shadow"}}`,
	} {
		assert.Error(t, eval(schema, args), "%s ran under %s", args, schema)
	}
	// The same schemas' paths outside /etc: under additionalProperties
	// they are read, and run.
	assert.NoError(t, eval(`{"type":"object","additionalProperties":{"type":"string","x-toolbelt-path":true}}`, `{"dir":"docs/a"}`))
	assert.NoError(t, eval(`{"type":"object","properties":{"o":{"type":"object","additionalProperties":{"type":"string","x-toolbelt-path":true}}}}`, `{"o":{"dir":"docs/a"}}`))
}
