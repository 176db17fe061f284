package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A key that names a property in another case is refused wherever the
// schema (or a subschema applied to the same object: $ref, allOf, a
// branch of anyOf, if/then) names that property; one it does not name,
// and keys of a map, are not. See caseTwin and registry's
// TestAttackS30CaseTwinKeysAreValidated.
func TestCaseTwinKeysAreRefusedWhereTheSchemaNamesThem(t *testing.T) {
	v, err := Compile(json.RawMessage(`{"type":"object",
		"properties":{"dir":{"type":"string"},"env":{"type":"object","additionalProperties":{"type":"string"}}},
		"allOf":[{"$ref":"#/$defs/more"}],
		"anyOf":[{"properties":{"mode":{"type":"string"}}},{"required":["dir"]}],
		"if":{"properties":{"kind":{"const":"x"}}},"then":{"required":["dir"]},
		"$defs":{"more":{"properties":{"limit":{"type":"integer"}}}}}`))
	require.NoError(t, err)
	for args, bad := range map[string]string{
		`{"DIR":"x"}`:                 "DIR",
		`{"dir":"x","Dir":"y"}`:       "Dir",
		`{"LIMIT":5}`:                 "LIMIT",
		`{"Mode":"x"}`:                "Mode",
		`{"` + "\u212A" + `ind":"x"}`: "\u212Aind",
		`{"dir":"x","env":{"A":"1","a":"2","DIR":"3"}}`: "",
		`{"dir":"x","limit":5,"other":1}`:               "",
	} {
		m, err := Decode([]byte(args))
		require.NoError(t, err)
		err = v.Validate(m)
		if bad == "" {
			assert.NoError(t, err, args)
			continue
		}
		var fe *FieldErrors
		if assert.ErrorAs(t, err, &fe, args) {
			assert.Equal(t, bad, fe.Fields[0].Path, args)
			assert.Contains(t, fe.Fields[0].Rule, "in another case", args)
		}
	}
}

// Keys the schema does not name are compared with every property it
// names: a wide object of them against a schema of many properties stays
// within the work bound, or is refused by it, never unbounded.
func TestWideObjectOfUnnamedKeysAgainstManyProperties(t *testing.T) {
	var props []string
	for i := range 500 {
		props = append(props, fmt.Sprintf(`"property_%d":{"type":"string"}`, i))
	}
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`))
	require.NoError(t, err)
	wide := func(n int) map[string]any {
		m := make(map[string]any, n)
		for i := range n {
			m[fmt.Sprintf("k%d", i)] = json.Number("1")
		}
		return m
	}
	// 30M comparisons (about half a second) are within it: 0.47M units.
	assert.NoError(t, v.Validate(wide(60000)))
	// 100M are not: 1.56M units.
	err = v.Validate(wide(200000))
	var fe *FieldErrors
	if assert.ErrorAs(t, err, &fe) {
		assert.Contains(t, fe.Fields[0].Rule, "would take more than")
	}
}
