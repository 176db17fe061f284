package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
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

// uniqueItems compares each pair of a list's items when it has at most 20
// (encoding each number as an exact fraction, twice per comparison), and
// checks its items only after: a plain tags schema (items of type string,
// uniqueItems) got 20 lists of 25,000 numbers each, equal but for the last,
// 1 MB of arguments, and took 8.3 s and 1.14 GB (66M allocations) to
// refuse, each call. The work bound now counts the comparisons.
func TestAttackS30UniqueItemsOfNearTwinsIsBounded(t *testing.T) {
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true}}}`))
	require.NoError(t, err)
	item := "[" + strings.Repeat("1,", 25000)
	var items []string
	for i := range 20 {
		items = append(items, item+"1"+strings.Repeat("0", i)+"]")
	}
	m, err := Decode([]byte(`{"tags":[` + strings.Join(items, ",") + `]}`))
	require.NoError(t, err)
	b := allocatedBytes(func() { err = v.Validate(m) })
	t.Logf("allocated %d bytes: %v", b, err)
	require.Error(t, err)
	assert.Less(t, b, uint64(16<<20), "allocated %d bytes", b)

	// Long lists of distinct values, and a few distinct lists, pass.
	var many []string
	for i := range 100000 {
		many = append(many, fmt.Sprintf(`"tag-%d"`, i))
	}
	m, err = Decode([]byte(`{"tags":[` + strings.Join(many, ",") + `]}`))
	require.NoError(t, err)
	assert.NoError(t, v.Validate(m))
	v, err = Compile(json.RawMessage(`{"type":"object","properties":{"rows":{"type":"array","uniqueItems":true}}}`))
	require.NoError(t, err)
	m, err = Decode([]byte(`{"rows":[` + strings.Repeat(`[1,2,3,4,5,6,7,8,9,10],`, 19) + `[1]]}`))
	require.NoError(t, err)
	assert.Error(t, v.Validate(m), "equal rows")
	var nums []string
	for i := range 300000 {
		nums = append(nums, strconv.Itoa(i))
	}
	m, err = Decode([]byte(`{"rows":[` + strings.Join(nums, ",") + `]}`))
	require.NoError(t, err)
	assert.NoError(t, v.Validate(m))
}

// enum compares the value with each member in turn, a number with a
// number by turning both into exact fractions (fmt.Sprint and big.Rat):
// 30,000 codes (210 KB) against an enum of 1,000 numbers took 21 s and
// 3.9 GB; the work bound charged the enum a 32nd of a unit a member.
func TestAttackS30NumberEnumIsBounded(t *testing.T) {
	var enum []string
	for i := range 1000 {
		enum = append(enum, strconv.Itoa(i+100000))
	}
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"codes":{"type":"array","items":{"enum":[` + strings.Join(enum, ",") + `]}},
		"rows":{"type":"array","items":{"enum":[[1,2,3],[4,5,6],"x"]}},"one":{"const":[1,2]}}}`))
	require.NoError(t, err)
	codes := func(n int) map[string]any {
		var nums []string
		for i := range n {
			nums = append(nums, strconv.Itoa(100000+i%1000))
		}
		m, err := Decode([]byte(`{"codes":[` + strings.Join(nums, ",") + `]}`))
		require.NoError(t, err)
		return m
	}
	m := codes(10000)
	b := allocatedBytes(func() { err = v.Validate(m) })
	t.Logf("allocated %d bytes: %v", b, err)
	require.Error(t, err)
	assert.Less(t, b, uint64(64<<20), "allocated %d bytes", b)

	// A few hundred codes, and lists of short lists, are checked as before.
	assert.NoError(t, v.Validate(codes(300)))
	m, err = Decode([]byte(`{"rows":[` + strings.Repeat(`[1,2,3],"x",`, 1000) + `[4,5,6]],"one":[1,2]}`))
	require.NoError(t, err)
	assert.NoError(t, v.Validate(m))
	m, err = Decode([]byte(`{"codes":[99],"rows":[[1,2]],"one":[1,3]}`))
	require.NoError(t, err)
	assert.Error(t, v.Validate(m))
}

// The validator applies if, then, else and dependentSchemas to the value
// in place, and patternProperties to the values of the keys they match;
// NestedPaths followed none of them, so a path declared there was
// validated but neither returned nor reported cut, and the policy and
// approval rules never judged it: {"mode":"copy","dest":"~/.ssh/id"} ran
// unjudged under a then that declared dest a path.
func TestAttackS30PathsUnderEveryApplicatorAreJudged(t *testing.T) {
	for raw, want := range map[string]string{
		`{"type":"object","properties":{"mode":{"type":"string"}},"if":{"properties":{"mode":{"const":"copy"}}},"then":{"properties":{"dest":{"type":"string","x-toolbelt-path":true}}}}`:                    "dest",
		`{"type":"object","if":{"required":["a"]},"then":{},"else":{"properties":{"o":{"type":"object","properties":{"p":{"x-toolbelt-path":true}}}}}}`:                                                      "o.p",
		`{"type":"object","dependentSchemas":{"copy":{"properties":{"dest":{"type":"string","x-toolbelt-path":true}}}}}`:                                                                                     "dest",
		`{"type":"object","properties":{"o":{"type":"object","patternProperties":{"^file_":{"type":"string","x-toolbelt-path":true}}}}}`:                                                                     "",
		`{"type":"object","properties":{"o":{"type":"array","contains":{"type":"string","x-toolbelt-path":true}}}}`:                                                                                          "",
		`{"type":"object","properties":{"o":{"type":"string","default":{"x-toolbelt-path":true},"enum":[{"x-toolbelt-path":true}],"const":{"x-toolbelt-path":true},"examples":[{"x-toolbelt-path":true}]}}}`: "none",
	} {
		paths, cut := NestedPaths(json.RawMessage(raw))
		var names []string
		for _, p := range paths {
			names = append(names, p.Name)
		}
		switch want {
		case "":
			assert.True(t, cut, "%s: a path it cannot follow makes the walk cut (found %v)", raw, names)
		case "none":
			assert.False(t, cut, raw)
			assert.Empty(t, names, "values are not schemas: %s", raw)
		default:
			assert.Contains(t, names, want, raw)
			assert.False(t, cut, raw)
		}
	}
}

type s30A struct {
	Dir string `json:"dir" jsonschema:"pattern=^[a-z]+$"`
}
type s30B struct {
	Dir  string `json:"dir"`
	Kind string `json:"kind"`
}

// Two fields of one JSON name in one object are refused at any depth of
// the arguments; fields promoted without a clash are inlined as before.
func TestReflectRefusesTwoFieldsOfOneJSONName(t *testing.T) {
	// go vet's structtag check refuses two tags of one name in a struct
	// or in structs embedded side by side, not these.
	type shadow struct {
		Dir string `json:"dir"`
		s30A
	}
	type nested struct {
		Inner []struct {
			s30A
			Dir string `json:"dir"`
		} `json:"inner"`
	}
	type tagAndName struct {
		A string `json:"B"`
		B string
	}
	type fine struct {
		s30A
		Other string `json:"kind"`
		Inner s30B   `json:"inner"`
	}
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[shadow]():     `fields shadow.Dir and s30A.Dir both have the JSON name "dir"`,
		reflect.TypeFor[nested]():     `fields s30A.Dir and Dir both have the JSON name "dir"`,
		reflect.TypeFor[tagAndName](): `fields tagAndName.A and tagAndName.B both have the JSON name "B"`,
		reflect.TypeFor[fine]():       "",
	} {
		_, err := Reflect(typ)
		if want == "" {
			assert.NoError(t, err, typ)
			continue
		}
		if assert.Error(t, err, typ) {
			assert.Contains(t, err.Error(), want, typ)
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
