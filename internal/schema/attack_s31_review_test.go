package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// caseVariants returns every spelling of name (lower-case letters) in
// other cases, name itself left out.
func caseVariants(name string) []string {
	var out []string
	for mask := 1; mask < 1<<len(name); mask++ {
		b := []byte(name)
		for i := range b {
			if mask&(1<<i) != 0 {
				b[i] = b[i] - 'a' + 'A'
			}
		}
		out = append(out, string(b))
	}
	return out
}

// twinSchema is an object schema whose allOf holds k members naming
// "abcdefghij" and one naming its 1,023 other spellings, and arguments
// that send each of those: every key is a twin of a property of each of
// the k members, declared exactly by the last one, so declaredInPlace
// reads the k+2 schemas of the allOf for each key in each member.
func twinSchema(k int) (raw, args string) {
	const name = "abcdefghij"
	var members, decl, keys []string
	for i := range k {
		members = append(members, fmt.Sprintf(`{"properties":{%q:{},"x%d":{}}}`, name, i))
	}
	for _, v := range caseVariants(name) {
		decl = append(decl, fmt.Sprintf(`%q:{}`, v))
		keys = append(keys, fmt.Sprintf(`%q:0`, v))
	}
	members = append(members, `{"properties":{`+strings.Join(decl, ",")+`}}`)
	return `{"type":"object","allOf":[` + strings.Join(members, ",") + `]}`, `{` + strings.Join(keys, ",") + `}`
}

// fb10ad5 left enum and const out of the big-integer check: a number not
// equal to a member is refused as sent. Under not, or as an if's
// condition, such a number is what passes: not const 9007199254740996
// passed 9007199254740995, which a float64 field reads as
// 9007199254740996, the one number the schema excludes.
func TestAttackS31ReviewBigIntegerUnderNotConst(t *testing.T) {
	type f struct {
		X float64 `json:"x"`
	}
	for _, raw := range []string{
		`{"type":"object","properties":{"x":{"type":"number","not":{"const":9007199254740996}}}}`,
		`{"type":"object","properties":{"x":{"type":"number","not":{"enum":[1,9007199254740996]}}}}`,
		`{"type":"object","not":{"properties":{"x":{"const":9007199254740996}},"required":["x"]}}`,
		`{"type":"object","properties":{"x":{"if":{"const":9007199254740996},"then":false}}}`,
		`{"type":"object","properties":{"x":{"not":{"$ref":"#/$defs/bad"}}},"$defs":{"bad":{"enum":[9007199254740996]}}}`,
	} {
		var in f
		err := validateAndDecode(t, raw, `{"x":9007199254740995}`, &in)
		assert.ErrorContains(t, err, "as a float64 reads", "%s: passed, and the float64 field read %v", raw, in.X)
	}
	// Still so: a number the float64 reads as another than the one
	// excluded passes, and so do the enum's own members outside not.
	var in f
	assert.NoError(t, validateAndDecode(t, `{"type":"object","properties":{"x":{"type":"number","not":{"const":9007199254740996}}}}`, `{"x":9007199254740993}`, &in))
	assert.NoError(t, validateAndDecode(t, `{"type":"object","properties":{"x":{"type":"number","not":{"const":9007199254740996}}}}`, `{"x":9007199254740998}`, &in))
	assert.NoError(t, validateAndDecode(t, `{"type":"object","properties":{"x":{"type":"number","enum":[9007199254740993]}}}`, `{"x":9007199254740993}`, &in))
}

// c18e264 skips the big-integer check for a schema whose type says
// "integer" (an int64 reads the number exactly), also when its type list
// says "number" too, which admits a float64 field's number:
// {"type":["number","integer"],"exclusiveMaximum":9007199254740996}
// passed 9007199254740995, read as 9007199254740996.
func TestAttackS31ReviewBigIntegerUnderATypeListWithNumber(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","properties":{"x":{"type":["number","integer"],"exclusiveMaximum":9007199254740996}}}`,
		`{"type":"object","properties":{"x":{"type":["integer","number","null"],"multipleOf":5}}}`,
	} {
		var in struct{ X float64 }
		err := validateAndDecode(t, raw, `{"x":9007199254740995}`, &in)
		assert.ErrorContains(t, err, "as a float64 reads", "%s: passed, and the float64 field read %v", raw, in.X)
	}
	// An integer type, nullable or not, is read exactly by an int64.
	for _, raw := range []string{
		`{"type":"object","properties":{"x":{"type":["integer","null"],"exclusiveMaximum":9007199254740996}}}`,
		`{"type":"object","properties":{"x":{"type":"integer","multipleOf":5}}}`,
	} {
		assert.NoError(t, validateAndDecode(t, raw, `{"x":9007199254740995}`, &struct{ X int64 }{}), raw)
	}
}

// c18e264 checks a big integer as a float64 reads it where the schema
// bounding it does not say "integer", though one applied with it does (a
// $ref or allOf member holding the bounds, the type beside them): an
// int64 field reads the number exactly, and 9223372036854775807 under
// {"type":"integer","$ref":"#/$defs/i64"} (maximum 9223372036854775807)
// was refused, as a float64 reads it as 2^63, past the maximum.
func TestAttackS31ReviewBigIntegerTypedBesideItsBounds(t *testing.T) {
	for raw, args := range map[string]string{
		`{"type":"object","properties":{"x":{"type":"integer","$ref":"#/$defs/i64"}},"$defs":{"i64":{"minimum":-9223372036854775808,"maximum":9223372036854775807}}}`: `{"x":9223372036854775807}`,
		`{"type":"object","properties":{"x":{"type":"integer","allOf":[{"exclusiveMaximum":9007199254740996}]}}}`:                                                     `{"x":9007199254740995}`,
		`{"type":"object","properties":{"x":{"allOf":[{"type":"integer"},{"multipleOf":5}]}}}`:                                                                        `{"x":9007199254740995}`,
	} {
		var in struct{ X int64 }
		assert.NoError(t, validateAndDecode(t, raw, args, &in), "%s: an int64 reads %s exactly", raw, args)
	}
	// An integer type in an alternative (anyOf) does not say the field
	// is an integer's: checked rounded, as before.
	var in struct{ X float64 }
	assert.Error(t, validateAndDecode(t, `{"type":"object","properties":{"x":{"anyOf":[{"type":"integer"},{"type":"string"}],"exclusiveMaximum":9007199254740996}}}`,
		`{"x":9007199254740995}`, &in))
}

type s31Tree struct {
	A, B, C *s31Tree
	N       string
}

// holdsFloat32 visits each type once: a recursive type of three
// branches is no 3^32 walk.
func TestHoldsFloat32VisitsEachTypeOnce(t *testing.T) {
	assert.False(t, holdsFloat32(reflect.TypeFor[s31Tree](), nil))
	assert.True(t, holdsFloat32(reflect.TypeFor[map[string][]struct{ F *float32 }](), nil))
	err := Float32Bounds(reflect.TypeFor[s31Tree](), json.RawMessage(`{"$ref":"#t","$defs":{"t":{"$anchor":"t"}}}`))
	assert.NoError(t, err, "no float32 lies under the unfollowed ref")
}

type s31SelfEmbedding struct {
	//lint:ignore U1000 the type is walked by reflection only
	*s31SelfEmbedding
	*s31Other
	X float32 `json:"x"`
}

type s31Other struct {
	*s31SelfEmbedding
	Y float32 `json:"y"`
}

// A struct that embeds a pointer to itself (legal Go, which encoding/json
// decodes) is walked once per type: Float32Bounds's fields recursed into
// embedded structs without end, and the stack overflow killed the
// program at NewFunc.
func TestAttackS31ReviewSelfEmbeddingStructIsWalkedOnce(t *testing.T) {
	typ := reflect.TypeFor[s31SelfEmbedding]()
	err := Float32Bounds(typ, json.RawMessage(`{"type":"object","properties":{"y":{"exclusiveMaximum":1}}}`))
	assert.ErrorContains(t, err, "field y")
	assert.NoError(t, CaseTwinFields(typ, json.RawMessage(`{"type":"object","properties":{"x":{},"y":{}}}`)))
	assert.ErrorContains(t, CaseTwinFields(typ, json.RawMessage(`{"type":"object","properties":{"y":{},"Y":{}}}`)), "field y")
}

// A key named in another case by one allOf member and exactly by another
// passes since 773acbd (declaredInPlace), which looks for the exact name
// through the allOf and $ref of every schema being applied, for every
// such key in every such member, each look building a map of the schemas
// it read, and charged 1/64 unit per schema: 100 members naming one
// property and 1,023 keys (25 KB) allocated 2,790 bytes per unit charged
// (the bound other values keep is 640), 445 MB in 1.3 s; 250 members
// stayed within the work bound and took 9.8 s and 4.6 GB.
func TestAttackS31ReviewDeclaredTwinsAreCharged(t *testing.T) {
	raw, args := twinSchema(100)
	per, err := bytesPerUnit(t, raw, args)
	require.NoError(t, err, "every key is declared exactly by an allOf member")
	assert.Less(t, per, 640.0, "%.0f bytes allocated per unit of work charged", per)

	// 250 members: past the work bound now, refused before the validator
	// runs.
	raw, args = twinSchema(250)
	v, err := Compile(json.RawMessage(raw))
	require.NoError(t, err)
	m, err := Decode([]byte(args))
	require.NoError(t, err)
	w := &costWalk{times: 1}
	ok := w.apply(v.schema, m)
	t.Logf("250 members: work %.0f", w.work)
	assert.False(t, ok, "work %.0f within the bound", w.work)
}
