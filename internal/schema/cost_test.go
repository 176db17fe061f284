package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nested is {"a":{"a":...leaf...}} n levels deep, each level padded with
// a field no schema names.
func nested(t testing.TB, n int, pad, leaf string) map[string]any {
	level := `{"a":`
	if pad != "" {
		level = `{"pad":"` + pad + `","a":`
	}
	m, err := Decode([]byte(strings.Repeat(level, n) + leaf + strings.Repeat(`}`, n)))
	require.NoError(t, err)
	return m
}

// An MCP schema (or a model's arguments against a local one) that refers
// back to itself through two anyOf branches applies 2^depth schemas to
// arguments nested depth levels deep: 16 levels cost 5.5 million
// allocations and 1.1 s, each level doubles it, so 40 levels of a few KB
// would run for days. The check refuses it after a bounded amount of work.
func TestAttackRecursiveAlternativesAreBounded(t *testing.T) {
	schemas := map[string]string{
		"anyOf": `{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"$defs":{"n":{"anyOf":[
			{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}},
			{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"required":["zz"]}]}}}`,
		"oneOf": `{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"$defs":{"n":{"oneOf":[
			{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}},
			{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"required":["zz"]}]}}}`,
		"patternProperties": `{"type":"object","properties":{"a":{"$ref":"#"}},"patternProperties":{"^a$":{"$ref":"#"}}}`,
	}
	for name, raw := range schemas {
		t.Run(name, func(t *testing.T) {
			v, err := Compile(json.RawMessage(raw))
			require.NoError(t, err)
			// A few levels are fine: the bound leaves ordinary use alone.
			require.NoError(t, v.Validate(nested(t, 6, "", `{}`)))

			args := nested(t, 40, strings.Repeat("x", 64), `{}`) // 3.5 KB
			var err2 error
			allocs := testing.AllocsPerRun(1, func() { err2 = v.Validate(args) })
			var fe *FieldErrors
			require.True(t, errors.As(err2, &fe), "%v", err2)
			require.Len(t, fe.Fields, 1)
			assert.True(t, strings.HasPrefix(fe.Fields[0].Path, "a.a.a.a"), fe.Fields[0].Path)
			assert.Contains(t, fe.Fields[0].Rule, "anyOf, oneOf or allOf alternatives refer back")
			assert.Contains(t, fe.Fields[0].Rule, "send fewer or less deeply nested values")
			assert.Less(t, allocs, 10_000.0, "the refusal costs little")
		})
	}
}

// The same attack at a depth the old code still finished (18 levels:
// about 22 million allocations, 5 s): the work stops at the bound.
func TestAttackRecursiveAnyOfWorkIsBounded(t *testing.T) {
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"$defs":{"n":{"anyOf":[
		{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}},
		{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"required":["zz"]}]}}}`))
	require.NoError(t, err)
	args := nested(t, 18, "", `{}`)
	allocs := testing.AllocsPerRun(1, func() { _ = v.Validate(args) })
	assert.Less(t, allocs, 100_000.0)
}

// A plain tree schema (a node refers to itself once) with arguments
// nested deep and wrong at the bottom: the validator spells out the whole
// chain of schemas in each level's error, so its work grows with the cube
// of the depth (500 levels: 264,000 allocations and 0.4 s; 2,000 levels,
// 12 KB: 52 s). Arguments nested past MaxDepth are refused first.
func TestAttackDeeplyNestedArgumentsAreRefused(t *testing.T) {
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#"},"n":{"type":"integer"}}}`))
	require.NoError(t, err)
	require.NoError(t, v.Validate(nested(t, MaxDepth-1, "", `{"n":1}`)))
	assert.ErrorContains(t, v.Validate(nested(t, MaxDepth-1, "", `{"n":"x"}`)), "must be integer")

	args := nested(t, 500, "", `{"n":"x"}`)
	var err2 error
	allocs := testing.AllocsPerRun(1, func() { err2 = v.Validate(args) })
	var fe *FieldErrors
	require.True(t, errors.As(err2, &fe), "%v", err2)
	require.Len(t, fe.Fields, 1)
	assert.Equal(t, strings.Repeat("a.", MaxDepth-1)+"a", fe.Fields[0].Path)
	assert.Contains(t, fe.Fields[0].Rule, "nested more than 64 objects and arrays deep")
	assert.Contains(t, fe.Fields[0].Rule, "send flatter arguments")
	assert.Less(t, allocs, 10_000.0)
}

// Within the depth bound, a wide array of wrong values deep in a tree
// costs the validator one error per item, each spelling out the chain of
// schemas down to it: 20,000 items 60 levels deep (40 KB) took 3.6 s and
// 3 million allocations. The bound counts that chain.
func TestAttackWideFailingArrayDeepDownIsBounded(t *testing.T) {
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#"},"l":{"type":"array","items":{"type":"string"}}}}`))
	require.NoError(t, err)
	args := nested(t, 60, "", `{"l":[`+strings.Repeat(`1,`, 20000)+`1]}`)
	var err2 error
	allocs := testing.AllocsPerRun(1, func() { err2 = v.Validate(args) })
	require.Error(t, err2)
	assert.True(t, strings.Contains(err2.Error(), "would take more than"), "%.300s", err2)
	assert.Less(t, allocs, 100_000.0)
	// The same items near the top are checked.
	err2 = v.Validate(nested(t, 1, "", `{"l":[`+strings.Repeat(`1,`, 2000)+`1]}`))
	var fe *FieldErrors
	require.True(t, errors.As(err2, &fe), "%.300v", err2)
	assert.Len(t, fe.Fields, MaxFieldErrors+1)
}

// Every failing field was named: 500,001 wrong items (1 MB of arguments)
// made an error of 19 MB, which goes back to the model. The first
// MaxFieldErrors are named, then how many more fail.
func TestAttackManyFailingFieldsAreSummarised(t *testing.T) {
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"}}}}`))
	require.NoError(t, err)
	m, err := Decode([]byte(`{"l":[` + strings.Repeat(`1,`, 5000) + `1]}`))
	require.NoError(t, err)
	err = v.Validate(m)
	var fe *FieldErrors
	require.True(t, errors.As(err, &fe), "%.300v", err)
	require.Len(t, fe.Fields, MaxFieldErrors+1)
	assert.Equal(t, FieldError{Path: "l[0]", Rule: "must be string, got number"}, fe.Fields[0])
	assert.Equal(t, FieldError{Path: "(root)", Rule: "and 4901 more fields fail: fix these and send again"}, fe.Fields[MaxFieldErrors])
	assert.Less(t, len(err.Error()), 8<<10)
}

// Plain arguments of about a megabyte (the executor's default limit) stay
// within the bound.
func TestLargePlainArgumentsAreWithinTheBound(t *testing.T) {
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"rows":{"type":"array","items":{"$ref":"#/$defs/row"}}},
		"$defs":{"row":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string","maxLength":64},"tags":{"type":"array","items":{"type":"string"}}},"required":["id"]}}}`))
	require.NoError(t, err)
	row := `{"id":12345,"name":"some name here","tags":["a","b","c"]},`
	raw := `{"rows":[` + strings.Repeat(row, (1<<20)/len(row)-1) + `{"id":1}]}`
	m, err := Decode([]byte(raw))
	require.NoError(t, err)
	assert.NoError(t, v.Validate(m))
}

// The bound's share of validating typical arguments: checkCost alone
// against the whole Validate (which includes it), in the same run.
func BenchmarkCheckCost(b *testing.B) {
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","minLength":1},"limit":{"type":"integer","minimum":1,"maximum":50},
		"kind":{"type":"string","enum":["docs","code","issues"]},"near":{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string"}},"required":["city"]}},"required":["query"]}`))
	require.NoError(b, err)
	m, err := Decode([]byte(`{"query":"sandbox escape","limit":10,"kind":"docs","near":{"city":"Lisbon","country":"PT"}}`))
	require.NoError(b, err)
	b.Run("checkCost", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := checkCostTimes(v.schema, m, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Validate", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := v.Validate(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A number with a huge exponent: the validator turns it into an exact
// fraction (10^10,000,000 does not fit, and a nil fraction panicked: one
// call's arguments crashed the process), and 1e1000000 took 57 ms to
// check, so a megabyte of them would take hours. Numbers past float64's
// range, or longer than any real number is written, are refused first.
func TestAttackHugeNumbersAreRefused(t *testing.T) {
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"m":{"type":"number","minimum":0},"l":{"type":"array","items":{"type":"number"}}}}`))
	require.NoError(t, err)
	for _, args := range []string{`{"n":1e10000000}`, `{"m":1e10000000}`, `{"m":1E-10000000}`, `{"n":1e1000000}`,
		`{"l":[1,2,1e401]}`, `{"n":1` + strings.Repeat("0", 400) + `}`} {
		m, err := Decode([]byte(args))
		require.NoError(t, err)
		var fe *FieldErrors
		err = v.Validate(m)
		require.True(t, errors.As(err, &fe), "%.100s: %v", args, err)
		require.Len(t, fe.Fields, 1)
		assert.Contains(t, []string{"n", "m", "l[2]"}, fe.Fields[0].Path)
		assert.Contains(t, fe.Fields[0].Rule, "send a number within")
	}
	for _, args := range []string{`{"n":12345678901234567890}`, `{"m":1.7976931348623157e308}`, `{"m":5e-324}`, `{"m":0.000001}`, `{"n":-0}`} {
		m, err := Decode([]byte(args))
		require.NoError(t, err)
		assert.NoError(t, v.Validate(m), args)
	}
}

// A schema's numbers reach the same fractions: multipleOf 1e-10000000
// (which encoding/json reads as 0, so the schema looked fine) panicked
// inside the validator's compiler, and MCP schemas are compiled when a
// server's tools are listed. Such a schema is refused, naming where.
func TestAttackSchemaWithHugeNumberIsRefused(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","properties":{"n":{"multipleOf":1e-10000000}}}`,
		`{"type":"object","properties":{"n":{"type":"number","minimum":1e-500}}}`,
		`{"type":"object","properties":{"n":{"enum":[1, 2e-99999]}}}`,
	} {
		_, err := Compile(json.RawMessage(raw))
		require.Error(t, err, raw)
		assert.Contains(t, err.Error(), "/properties/n/", raw)
		assert.Contains(t, err.Error(), "exponent within ±400", raw)
	}
	_, err := Compile(json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","multipleOf":1e-300,"maximum":1.7976931348623157e308}}}`))
	assert.NoError(t, err)
}

// enumSchema is an object schema whose field l is an array of strings
// each from an enum of n values.
func enumSchema(t testing.TB, n int) *Validator {
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf(`"value-%d"`, i)
	}
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"l":{"type":"array","items":{"enum":[` + strings.Join(vals, ",") + `]}}}}`))
	require.NoError(t, err)
	return v
}

// An enum of 20,000 values (a 300 KB schema) and 20,001 wrong items (100
// KB of arguments): the validator compared every item with every value
// (16 s) and each item's error listed all 20,000 values, so the error
// was 3.7 GB. Comparing counts toward the bound, and a rule quotes at
// most a few values.
func TestAttackHugeEnumIsBounded(t *testing.T) {
	v := enumSchema(t, 20000)
	m, err := Decode([]byte(`{"l":[` + strings.Repeat(`"zz",`, 20000) + `"zz"]}`))
	require.NoError(t, err)
	var err2 error
	allocs := testing.AllocsPerRun(1, func() { err2 = v.Validate(m) })
	require.Error(t, err2)
	assert.Less(t, len(err2.Error()), 1000)
	assert.Contains(t, err2.Error(), "would take more than")
	assert.Less(t, allocs, 10_000.0)

	// Within the bound, each wrong item is named with a short rule.
	v = enumSchema(t, 2000)
	m, err = Decode([]byte(`{"l":["value-7",` + strings.Repeat(`"zz",`, 99) + `"zz"]}`))
	require.NoError(t, err)
	var fe *FieldErrors
	require.True(t, errors.As(v.Validate(m), &fe))
	require.Len(t, fe.Fields, 100)
	paths := map[string]bool{}
	for _, f := range fe.Fields {
		paths[f.Path] = true
	}
	assert.True(t, paths["l[100]"] && !paths["l[0]"])
	assert.Less(t, len(fe.Fields[0].Rule), 300, fe.Fields[0].Rule)
	assert.Contains(t, fe.Fields[0].Rule, `must be one of "value-0", "value-1"`)
	assert.Contains(t, fe.Fields[0].Rule, ", ... (the list goes on in the schema)")
}

// Go's regular expressions run in linear time, but their programs can be
// large: [a-z]{1,1000} fifty times (650 bytes) is 100,000 instructions,
// a{1000} a thousand times (7 KB) a million. A schema of such patterns
// took 0.65 s per pattern to load (an MCP server's listing holds many),
// and an argument checked with "format":"regex" took 1.1 s per 7 KB
// string. Both are refused past about 20,000 instructions.
func TestAttackHugeRegexProgramsAreRefused(t *testing.T) {
	big := strings.Repeat("[a-z]{1,1000}", 50)
	_, err := Compile(json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","pattern":"` + big + `"}}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "#/properties/a/pattern")
	assert.Contains(t, err.Error(), "write a simpler pattern")
	_, err = Compile(json.RawMessage(`{"type":"object","patternProperties":{"` + big + `":{}}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "#/patternProperties")

	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"r":{"type":"string","format":"regex"},"s":{"type":"string","pattern":"^[A-Z]{3}-[0-9]{1,8}$"}}}`))
	require.NoError(t, err)
	b, err := json.Marshal(map[string]string{"r": strings.Repeat("a{1000}", 1000)})
	require.NoError(t, err)
	m, err := Decode(b)
	require.NoError(t, err)
	var err2 error
	allocs := testing.AllocsPerRun(1, func() { err2 = v.Validate(m) })
	assert.EqualError(t, err2, "r: must be a valid regex")
	assert.Less(t, allocs, 100_000.0)

	m, err = Decode([]byte(`{"r":"^[a-z]+(-[a-z]+)*$","s":"ABC-123"}`))
	require.NoError(t, err)
	assert.NoError(t, v.Validate(m))
}

// A schema's references are never fetched: not over the network, not
// from files, not from another compiled schema, however they are
// reached ($ref, $schema, a $ref relative to an $id, $dynamicRef).
func TestRemoteReferencesAreNeverFetched(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`{"type":"string"}`))
	}))
	defer srv.Close()
	for _, raw := range []string{
		`{"type":"object","properties":{"a":{"$ref":"` + srv.URL + `/x.json"}}}`,
		`{"$schema":"` + srv.URL + `/meta","type":"object"}`,
		`{"$id":"` + srv.URL + `/root.json","type":"object","properties":{"a":{"$ref":"other.json"}}}`,
		`{"type":"object","properties":{"a":{"$dynamicRef":"` + srv.URL + `/d#x"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"mem://toolbelt/1.json"}}}`,
	} {
		_, err := Compile(json.RawMessage(raw))
		require.Error(t, err, raw)
		assert.Contains(t, err.Error(), "remote references are not loaded", raw)
	}
	assert.Zero(t, hits.Load())
}

// JSON inside a string, checked with contentMediaType and contentSchema,
// is a value of its own: its depth and its work count like the
// arguments' (a tree schema against content nested 500 levels deep and
// wrong at the bottom: 0.4 s, cubic in the depth).
func TestAttackDeepContentIsRefused(t *testing.T) {
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"doc":{"type":"string","contentMediaType":"application/json","contentSchema":{"$ref":"#/$defs/node"}}},
		"$defs":{"node":{"type":"object","properties":{"a":{"$ref":"#/$defs/node"},"n":{"type":"integer"}}}}}`))
	require.NoError(t, err)
	content := strings.Repeat(`{"a":`, 500) + `{"n":"x"}` + strings.Repeat(`}`, 500)
	b, err := json.Marshal(map[string]string{"doc": content})
	require.NoError(t, err)
	m, err := Decode(b)
	require.NoError(t, err)
	var err2 error
	allocs := testing.AllocsPerRun(1, func() { err2 = v.Validate(m) })
	var fe *FieldErrors
	require.True(t, errors.As(err2, &fe), "%.300v", err2)
	require.Len(t, fe.Fields, 1)
	assert.Equal(t, "doc", fe.Fields[0].Path)
	assert.Contains(t, fe.Fields[0].Rule, "holds JSON content nested more than 64 objects and arrays deep")
	assert.Less(t, allocs, 10_000.0)

	b, err = json.Marshal(map[string]string{"doc": `{"a":{"n":1}}`})
	require.NoError(t, err)
	m, err = Decode(b)
	require.NoError(t, err)
	assert.NoError(t, v.Validate(m))
}

// Patterns each within the bound add up: 300 patterns of 6,000
// instructions in one schema (50 KB) took 2.6 s to compile, for every
// tool of an MCP server's listing. A schema's patterns share one bound.
func TestAttackManyLargePatternsAreRefused(t *testing.T) {
	props := make([]string, 300)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d":{"type":"string","pattern":"^[a-z]{1,1000}[0-9]{1,1000}[A-Z]{1,1000}$"}`, i)
	}
	raw := json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)
	_, err := Compile(raw)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "patterns compile to more than 100000 instructions in all")
	_, err = Compile(json.RawMessage(`{"type":"object","properties":{` + strings.Join(props[:10], ",") + `}}`))
	assert.NoError(t, err)
}

// A long location is cut in the middle, on a character boundary.
func TestShortPathKeepsValidText(t *testing.T) {
	segs := []string{strings.Repeat("é", 80), "x", strings.Repeat("ü", 80)}
	p := shortPath(segs)
	assert.True(t, utf8.ValidString(p), p)
	assert.Contains(t, p, "...")
	assert.LessOrEqual(t, len(p), 210)
}
