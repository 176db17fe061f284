package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Integers past 2^53: the validator reads them exactly, an int64 or
// uint64 field too, a float64 field rounds them. A value the schema
// admits must be one the field reads within the schema's bounds; a value
// an integer field reads within them must not be refused.
func TestAttackS31BigIntegersAsTheToolReadsThem(t *testing.T) {
	type ints struct {
		I int64  `json:"i"`
		E int64  `json:"e"`
		U uint64 `json:"u"`
	}
	const intSchema = `{"type":"object","properties":{
		"i":{"type":"integer","maximum":9007199254740993,"exclusiveMinimum":9007199254740991},
		"e":{"type":"integer","enum":[9007199254740993,9223372036854775807]},
		"u":{"type":"integer","maximum":18446744073709551615,"multipleOf":3}}}`
	// Integer fields read the number exactly: what the schema admits.
	for _, ok := range []string{`{"i":9007199254740993}`, `{"i":9007199254740992}`, `{"e":9007199254740993}`,
		`{"e":9223372036854775807}`, `{"u":18446744073709551615}`} {
		var in ints
		assert.NoError(t, validateAndDecode(t, intSchema, ok, &in), "an integer field reads %s exactly, within the schema", ok)
	}
	for _, bad := range []string{`{"i":9007199254740994}`, `{"i":9007199254740991}`, `{"e":9007199254740992}`,
		`{"e":9223372036854775806}`, `{"u":18446744073709551614}`} {
		var in ints
		assert.Error(t, validateAndDecode(t, intSchema, bad, &in), "%s is outside the schema: %+v", bad, in)
	}

	// A float64 field rounds 9007199254740995 to 9007199254740996: onto
	// an exclusive bound, off a multipleOf.
	type floats struct {
		X float64 `json:"x"`
		M float64 `json:"m"`
	}
	const floatSchema = `{"type":"object","properties":{
		"x":{"type":"number","exclusiveMaximum":9007199254740996},
		"m":{"type":"number","multipleOf":5}}}`
	for _, args := range []string{`{"x":9007199254740995}`, `{"m":9007199254740995}`} {
		var in floats
		err := validateAndDecode(t, floatSchema, args, &in)
		assert.ErrorContains(t, err, "as a float64 reads", "%s passed; the float64 field read %+v (x must be < 9007199254740996, m a multiple of 5)", args, in)
	}
	var in floats
	assert.NoError(t, validateAndDecode(t, floatSchema, `{"x":9007199254740994,"m":9007199254740990}`, &in), "read exactly, within")
	assert.NoError(t, validateAndDecode(t, floatSchema, `{"x":9007199254740993,"m":-9007199254740995000}`, &in), "rounded within: %+v", in)
	// An enum or const member sent as written passes: the field reads it as
	// the member reads; another number is refused as sent.
	const members = `{"type":"object","properties":{"e":{"type":"number","enum":[9007199254740993,1]},"c":{"const":9007199254740995}}}`
	assert.NoError(t, validateAndDecode(t, members, `{"e":9007199254740993,"c":9007199254740995}`, &struct{ E, C float64 }{}))
	assert.Error(t, validateAndDecode(t, members, `{"e":9007199254740992}`, &struct{ E, C float64 }{}))
	assert.Error(t, validateAndDecode(t, members, `{"c":9007199254740996}`, &struct{ E, C float64 }{}))
	// No type: taken as a float64's; in a list, and negative.
	assert.Error(t, validateAndDecode(t, `{"type":"object","properties":{"l":{"type":"array","items":{"exclusiveMinimum":-9007199254740996}}}}`,
		`{"l":[1,-9007199254740995]}`, &struct{ L []float64 }{}))
}
