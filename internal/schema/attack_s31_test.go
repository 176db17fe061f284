package schema

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// validateAndDecode validates args against raw and, when they pass,
// decodes them into into as tool.Func does (encoding/json).
func validateAndDecode(t *testing.T, raw, args string, into any) error {
	t.Helper()
	v, err := Compile(json.RawMessage(raw))
	require.NoError(t, err)
	m, err := Decode([]byte(args))
	require.NoError(t, err)
	if err := v.Validate(m); err != nil {
		return err
	}
	require.NoError(t, json.Unmarshal([]byte(args), into), args)
	return nil
}

// Hand-written schemas for a Go tool taking float32: encoding/json reads
// the number as strconv.ParseFloat(s, 32) rounds it, and refuses one past
// float32's range (no +Inf reaches the tool).
func TestAttackS31Float32Targets(t *testing.T) {
	type f32 struct {
		X float32 `json:"x"`
	}
	const raw = `{"type":"object","properties":{"x":{"type":"number","maximum":3.4028235e38,"minimum":-3.4028235e38}}}`
	var in f32
	err := validateAndDecode(t, raw, `{"x":3.4028235e38}`, &in)
	require.NoError(t, err)
	assert.False(t, math.IsInf(float64(in.X), 0), "read %v", in.X)
	// Past float32's range but within the bound's decimal: the decoder fails.
	v, err := Compile(json.RawMessage(raw))
	require.NoError(t, err)
	m, err := Decode([]byte(`{"x":3.40282356e38}`))
	require.NoError(t, err)
	if v.Validate(m) == nil {
		var in f32
		err := json.Unmarshal([]byte(`{"x":3.40282356e38}`), &in)
		assert.Error(t, err, "3.40282356e38 passed and a float32 read it as %v", in.X)
	}
	// An exclusive bound in a hand-written schema is checked exactly, and a
	// float32 rounds onto it: Validate cannot know the field is a float32
	// (the reflected schema's linter refuses exclusive bounds on one).
	err = validateAndDecode(t, `{"type":"object","properties":{"x":{"type":"number","exclusiveMaximum":1}}}`, `{"x":0.99999999}`, &in)
	t.Logf("exclusiveMaximum 1, 0.99999999 into a float32: err %v, read %v", err, in.X)
}

// Paths a schema declares where NestedPaths cannot find them in the
// arguments (patternProperties, propertyNames, unevaluatedProperties at
// the root) cut the walk, so the policy refuses the call rather than pass
// the path unjudged; one under additionalProperties is found.
func TestAttackS31PathsUnderKeyKeywordsAreJudgedOrCut(t *testing.T) {
	for raw, want := range map[string]string{
		`{"type":"object","patternProperties":{"^dir$":{"type":"string","x-toolbelt-path":true}}}`:                                                    "",
		`{"type":"object","properties":{"dir":{"type":"string"}},"patternProperties":{"^dir$":{"type":"string","x-toolbelt-path":true}}}`:             "",
		`{"type":"object","propertyNames":{"type":"string","x-toolbelt-path":true}}`:                                                                  "",
		`{"type":"object","unevaluatedProperties":{"type":"string","x-toolbelt-path":true}}`:                                                          "",
		`{"type":"object","additionalProperties":false,"patternProperties":{"^d":{"$ref":"#/$defs/p"}},"$defs":{"p":{"x-toolbelt-path":true}}}`:       "",
		`{"type":"object","properties":{"o":{"type":"object","propertyNames":{"$ref":"#/$defs/p"}}},"$defs":{"p":{"x-toolbelt-path":true}}}`:          "",
		`{"type":"object","dependencies":{"a":{"properties":{"dir":{"x-toolbelt-path":true}}}}}`:                                                      "",
		`{"type":"object","additionalProperties":{"type":"string","x-toolbelt-path":true}}`:                                                           "{}",
		`{"type":"object","properties":{"o":{"type":"object","additionalProperties":{"type":"object","properties":{"f":{"x-toolbelt-path":true}}}}}}`: "o{}.f",
	} {
		paths, cut := NestedPaths(json.RawMessage(raw))
		var names []string
		for _, p := range paths {
			names = append(names, p.Name)
		}
		if want == "" {
			assert.True(t, cut, "%s: found %v, not cut: a path under it is validated and never judged", raw, names)
			continue
		}
		assert.False(t, cut, raw)
		assert.Contains(t, names, want, raw)
	}
}

// allOf branches that name path and Path (twins in case): a key named
// exactly by one of the schemas that all apply is declared, as it is
// when one properties names both; keys no schema names exactly are still
// refused.
func TestAttackS31AllOfCaseTwinsAreNotFalselyRefused(t *testing.T) {
	split := `{"type":"object","allOf":[
		{"properties":{"path":{"type":"string","pattern":"^/ok"}}},
		{"properties":{"Path":{"type":"string","pattern":"^/ok"}}}]}`
	merged := `{"type":"object","properties":{"path":{"type":"string","pattern":"^/ok"},"Path":{"type":"string","pattern":"^/ok"}}}`
	refRoot := `{"type":"object","$ref":"#/$defs/a","properties":{"Path":{"type":"string"}},"$defs":{"a":{"properties":{"path":{"type":"string","pattern":"^/ok"}}}}}`
	nested := `{"type":"object","properties":{"o":{"allOf":[{"allOf":[{"properties":{"path":{"type":"string"}}}]},{"properties":{"Path":{"type":"string"}}}]}}}`
	for _, raw := range []string{split, merged, refRoot} {
		v, err := Compile(json.RawMessage(raw))
		require.NoError(t, err)
		for _, ok := range []string{`{"path":"/ok/a"}`, `{"Path":"/ok/b"}`, `{"path":"/ok/a","Path":"/ok/b"}`} {
			m, err := Decode([]byte(ok))
			require.NoError(t, err)
			assert.NoError(t, v.Validate(m), "%s against %s: each key is declared exactly", ok, raw)
		}
		for _, bad := range []string{`{"PATH":"/etc"}`, `{"pAth":"/etc"}`, `{"path":"/etc"}`} {
			m, err := Decode([]byte(bad))
			require.NoError(t, err)
			assert.Error(t, v.Validate(m), "%s against %s", bad, raw)
		}
	}
	v, err := Compile(json.RawMessage(nested))
	require.NoError(t, err)
	m, err := Decode([]byte(`{"o":{"path":"a","Path":"b"}}`))
	require.NoError(t, err)
	assert.NoError(t, v.Validate(m), "nested allOf")
	m, err = Decode([]byte(`{"o":{"PATH":"a"}}`))
	require.NoError(t, err)
	assert.Error(t, v.Validate(m), "nested allOf, a key no branch names")

	// anyOf branches are alternatives: a key one names does not declare it
	// for the other, as before.
	v, err = Compile(json.RawMessage(`{"type":"object","anyOf":[
		{"properties":{"path":{"const":"/ok"}},"required":["path"]},
		{"properties":{"Path":{"const":"/ok"}}}]}`))
	require.NoError(t, err)
	m, err = Decode([]byte(`{"path":"/etc"}`))
	require.NoError(t, err)
	assert.Error(t, v.Validate(m), "anyOf: /etc under path passes the second branch only, which names Path")
}
