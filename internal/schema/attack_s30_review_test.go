package schema

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFloat64Reading(t *testing.T) {
	for n, want := range map[string]string{
		"0.99999999999999999999": "1", "1.00000000000000000001": "1", "1e-400": "0", "-1e-400": "-0",
		"100000000000000000001e-20": "1", "3.14159265358979323846": "3.141592653589793",
		"0.1": "", "0.30000000000000004": "", "1.0": "", "1e2": "", "100.000e-2": "", "-0.0": "", "0e-400": "",
		"5e-324": "", "12345678901234567890": "", "1E+300": "", "0.000001000": "", "1e400": "",
	} {
		r, ok := float64Reading(json.Number(n))
		assert.Equal(t, want != "", ok, n)
		assert.Equal(t, want, string(r), n)
	}
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"r":{"type":"number","exclusiveMaximum":1}}}`))
	require.NoError(t, err)
	err = v.Validate(map[string]any{"r": json.Number("0.99999999999999999999")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "r: ")
	assert.Contains(t, err.Error(), "as a float64 reads the number sent")
	t.Log(err)
}

// Review of ff6ed79: a key naming a declared property in another case must
// be refused wherever a schema applied to its object names the property,
// however that schema is reached.
func TestAttackS30ReviewCaseTwinsEverywhere(t *testing.T) {
	pat := `{"type":"string","pattern":"^[a-z]+$"}`
	for _, c := range []struct{ name, schema, args string }{
		{"oneOf", `{"type":"object","oneOf":[{"properties":{"dir":` + pat + `}},{"required":["zz"]}]}`, `{"DIR":"/etc"}`},
		{"not", `{"type":"object","not":{"properties":{"dir":{"const":"/etc"}},"required":["dir"]}}`, `{"DIR":"/etc"}`},
		{"prefixItems", `{"type":"object","properties":{"l":{"type":"array","prefixItems":[{"type":"object","properties":{"dir":` + pat + `}}]}}}`, `{"l":[{"DIR":"/etc"}]}`},
		{"items", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"dir":` + pat + `}}}}}`, `{"l":[{"dir":"a"},{"Dir":"/etc"}]}`},
		{"additionalProperties", `{"type":"object","additionalProperties":{"type":"object","properties":{"mode":{"enum":["safe"]}}}}`, `{"x":{"MODE":"unsafe"}}`},
		{"unevaluatedProperties", `{"type":"object","unevaluatedProperties":{"type":"object","properties":{"mode":{"enum":["safe"]}}}}`, `{"x":{"MODE":"unsafe"}}`},
		{"dependentSchemas", `{"type":"object","properties":{"mode":{}},"dependentSchemas":{"mode":{"properties":{"dest":` + pat + `}}}}`, `{"mode":"copy","DEST":"/etc"}`},
		{"ref chain", `{"type":"object","$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/c"},"c":{"type":"object","properties":{"dir":` + pat + `}}}}`, `{"DIR":"/etc"}`},
		{"escape", `{"type":"object","properties":{"dir":` + pat + `}}`, `{"\u0044IR":"/etc"}`},
		{"escaped long s", `{"type":"object","properties":{"src":` + pat + `}}`, `{"\u017frc":"/etc"}`},
		{"then", `{"type":"object","if":{"properties":{"mode":{"const":"copy"}}},"then":{"properties":{"dest":` + pat + `}}}`, `{"mode":"copy","Dest":"/etc"}`},
		{"else", `{"type":"object","if":{"required":["q"]},"else":{"properties":{"dest":` + pat + `}}}`, `{"Dest":"/etc"}`},
		{"anyOf of refs", `{"type":"object","anyOf":[{"$ref":"#/$defs/b"},{"type":"object"}],"$defs":{"b":{"type":"object","properties":{"dir":` + pat + `}}}}`, `{"DIR":"/etc"}`},
		{"dynamicRef", `{"$dynamicAnchor":"n","type":"object","properties":{"dir":` + pat + `,"c":{"$dynamicRef":"#n"}}}`, `{"c":{"DIR":"/etc"}}`},
	} {
		v, err := Compile(json.RawMessage(c.schema))
		require.NoError(t, err, c.name)
		m, err := Decode([]byte(c.args))
		require.NoError(t, err, c.name)
		err = v.Validate(m)
		if assert.Error(t, err, "%s: %s passed %s", c.name, c.args, c.schema) {
			assert.Contains(t, err.Error(), "another case", c.name)
		}
	}
}
