package schema

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Review of 1be1e40 and 8d94034: the work bound charged a unit per number
// compared, calibrated on short numbers (about 256 bytes each: fmt.Sprint
// and big.Rat of both); a number of 54 digits with an exponent of 399
// (numberOK's limits) turns into a fraction of some 1,330 bits, which
// costs about seven times as much, so values within the bound cost seven
// times the bound.
func TestAttackS30ReviewHeavyNumbersCountInTheWorkBound(t *testing.T) {
	var enum []string
	for i := range 1000 {
		enum = append(enum, strconv.Itoa(i+100000))
	}
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{
		"codes":{"type":"array","items":{"enum":[` + strings.Join(enum, ",") + `]}},
		"tags":{"type":"array","uniqueItems":true,"items":{"type":"string"}}}}`))
	require.NoError(t, err)
	heavy := "9.9999999999999999999999999999999999999999999999999999e399"
	m, err := Decode([]byte(`{"codes":[` + strings.TrimSuffix(strings.Repeat(heavy+",", 900), ",") + `]}`))
	require.NoError(t, err)
	b := allocatedBytes(func() { err = v.Validate(m) })
	t.Logf("enum: allocated %d bytes: %.100v", b, err)
	assert.Less(t, b, uint64(300<<20), "900 numbers against an enum of 1,000 allocated %d bytes", b)

	list := "[" + strings.TrimSuffix(strings.Repeat(heavy+",", 800), ",")
	var rows []string
	for i := range 20 {
		rows = append(rows, list+","+strconv.Itoa(i)+"]") // equal but for the last
	}
	m, err = Decode([]byte(`{"tags":[` + strings.Join(rows, ",") + `]}`))
	require.NoError(t, err)
	b = allocatedBytes(func() { err = v.Validate(m) })
	t.Logf("uniqueItems: allocated %d bytes: %.100v", b, err)
	assert.Less(t, b, uint64(300<<20), "20 lists of 800 numbers under uniqueItems allocated %d bytes", b)
}

// Review of 7b9bcfb: a path declared once in $defs and applied through a
// $ref both where NestedPaths follows (properties) and where it does not
// (patternProperties, unevaluatedProperties, additionalItems, not, an
// $anchor reference) was reached once, so the walk was not cut, and the
// path at the other place was validated but never judged.
func TestAttackS30ReviewSharedPathDefinitionIsJudgedOrCut(t *testing.T) {
	defs := `"$defs":{"p":{"$anchor":"pathdef","type":"string","x-toolbelt-path":true},"o":{"type":"object","properties":{"file":{"$ref":"#/$defs/p"}}}}`
	for _, raw := range []string{
		`{"type":"object",` + defs + `,"properties":{"src":{"$ref":"#/$defs/p"}},"patternProperties":{"^dst":{"$ref":"#/$defs/p"}}}`,
		`{"type":"object",` + defs + `,"properties":{"src":{"$ref":"#/$defs/p"}},"unevaluatedProperties":{"$ref":"#/$defs/p"}}`,
		`{"type":"object",` + defs + `,"properties":{"src":{"$ref":"#/$defs/p"},"l":{"type":"array","items":[{"type":"string"}],"additionalItems":{"$ref":"#/$defs/p"}}}}`,
		`{"type":"object",` + defs + `,"properties":{"a":{"$ref":"#/$defs/o"}},"patternProperties":{"^b":{"$ref":"#/$defs/o"}}}`,
		`{"type":"object",` + defs + `,"properties":{"src":{"$ref":"#/$defs/p"},"dst":{"$ref":"#pathdef"}}}`,
		`{"type":"object",` + defs + `,"properties":{"src":{"$ref":"#/$defs/p"}},"dependencies":{"src":{"properties":{"dst":{"$ref":"#/$defs/p"}}}}}`,
	} {
		paths, cut := NestedPaths(json.RawMessage(raw))
		var names []string
		for _, p := range paths {
			names = append(names, p.Name)
		}
		assert.True(t, cut, "%s: found only %v and not cut", raw, names)
	}
	// A shared definition reached only where the walk goes is not cut.
	paths, cut := NestedPaths(json.RawMessage(`{"type":"object",` + defs + `,"properties":{"a":{"$ref":"#/$defs/o"},"l":{"type":"array","items":{"$ref":"#/$defs/o"}}}}`))
	assert.False(t, cut)
	assert.Len(t, paths, 2)
}

// jsonschema v5 checks uniqueItems on a list of more than 20 items by
// hashing each item and comparing it with every earlier item of the same
// hash; its hash writes a string's bytes after a type byte with no length,
// so ["a\u0003a"] and ["a","a"] hash alike whatever the seed. 15,000
// distinct lists of 20 such segments (under 1 MB) all share one hash: the
// validator compares each with every earlier one (112 million
// comparisons), while the work bound charged them as hashed once.
func TestAttackS30ReviewUniqueItemsHashCollisions(t *testing.T) {
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true}}}`))
	require.NoError(t, err)
	const segs, n = 20, 8000
	var items []string
	for i := range n {
		// Bit j of i splits the segments between two strings there.
		var b strings.Builder
		b.WriteString(`["a`)
		for j := 1; j < segs; j++ {
			if i>>(j-1)&1 == 1 {
				b.WriteString(`","a`)
			} else {
				b.WriteString(`\u0003a`)
			}
		}
		b.WriteString(`"]`)
		items = append(items, b.String())
	}
	raw := `{"tags":[` + strings.Join(items, ",") + `]}`
	t.Logf("%d bytes", len(raw))
	m, err := Decode([]byte(raw))
	require.NoError(t, err)
	err = checkCostTimes(v.schema, m, 1)
	if assert.Error(t, err, "%d distinct items of one hash passed the work bound", n) {
		assert.Contains(t, err.Error(), "steps")
	}
	// Distinct items of distinct hashes pass, as before.
	var distinct []string
	for i := range 20000 {
		distinct = append(distinct, `["a`+strconv.Itoa(i)+`",`+strconv.Itoa(i)+`]`)
	}
	m, err = Decode([]byte(`{"tags":[` + strings.Join(distinct, ",") + `]}`))
	require.NoError(t, err)
	assert.NoError(t, checkCostTimes(v.schema, m, 1))
	assert.NoError(t, v.Validate(m))
	// A long list of one item is refused as the validator refuses it.
	m, err = Decode([]byte(`{"tags":[` + strings.TrimSuffix(strings.Repeat(`"x",`, 100000), ",") + `]}`))
	require.NoError(t, err)
	err = v.Validate(m)
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "are equal")
	}
}

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
	// Every spelling of a number a float64 reads as 0 is refused; so is
	// one of 400 zeros (past 64 characters); hex is not JSON.
	nv, err := Compile(json.RawMessage(`{"type":"object","properties":{"x":{"type":"number"}}}`))
	require.NoError(t, err)
	for _, n := range []string{"-1e-400", "1E-400", "1e-0400", "1E-0400", "-0.5e-330", "0." + strings.Repeat("0", 400) + "1"} {
		m, err := Decode([]byte(`{"x":` + n + `}`))
		require.NoError(t, err, n)
		assert.Error(t, nv.Validate(m), n)
	}
	_, err = Decode([]byte(`{"x":0x1p-1080}`))
	assert.Error(t, err)

	// A value checked twice counts twice against the work bound.
	var enum []string
	for i := range 1000 {
		enum = append(enum, strconv.Itoa(i+100000))
	}
	ev, err := Compile(json.RawMessage(`{"type":"object","properties":{"codes":{"type":"array","items":{"enum":[` + strings.Join(enum, ",") + `]}}}}`))
	require.NoError(t, err)
	codes := `"codes":[` + strings.TrimSuffix(strings.Repeat("100999,", 600), ",") + `]`
	m, err := Decode([]byte(`{` + codes + `}`))
	require.NoError(t, err)
	assert.NoError(t, ev.Validate(m))
	m, err = Decode([]byte(`{` + codes + `,"x":0.99999999999999999999}`))
	require.NoError(t, err)
	err = ev.Validate(m)
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "steps")
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
	// A schema that names both spellings takes both; map keys that no
	// schema names pass in any case.
	for _, c := range []struct{ schema, args string }{
		{`{"type":"object","properties":{"id":{"type":"string"},"ID":{"type":"integer"}}}`, `{"id":"a","ID":1}`},
		{`{"type":"object","properties":{"headers":{"type":"object","additionalProperties":{"type":"string"}}}}`, `{"headers":{"Content-Type":"a","content-type":"b","X-ID":"c","x-id":"d"}}`},
	} {
		v, err := Compile(json.RawMessage(c.schema))
		require.NoError(t, err)
		m, err := Decode([]byte(c.args))
		require.NoError(t, err)
		assert.NoError(t, v.Validate(m), c.args)
	}
}
