package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// numberRulesSchema checks every item of a list against the numeric
// keywords that turn a number into an exact fraction (big.Rat) in the
// validator: minimum, maximum, the exclusive pair and multipleOf.
const numberRulesSchema = `{"type":"object","properties":{"n":{"type":"array","items":{
	"type":"number","minimum":0,"maximum":1000,"exclusiveMinimum":-1,"exclusiveMaximum":1001,"multipleOf":0.5}}}}`

// numberList is {"n":[1.5,1.5,...]} with count numbers.
func numberList(count int) []byte {
	return []byte(`{"n":[` + strings.TrimSuffix(strings.Repeat("1.5,", count), ",") + `]}`)
}

// The work bound charged a number checked against minimum, maximum or
// multipleOf a unit, as any value, while the validator turns it into an
// exact fraction (fmt.Sprint, big.Rat) and divides it by multipleOf: 1 MB
// of plain numbers (1.5 x 250,000) passed the bound and allocated some
// 500 MB (1.7 s on a loaded machine). Such an argument must be refused by
// the bound, or allocate less than 64 times its size: the factor the
// providers' guard allows, past which 1 MB arguments (the executor's
// limit) would cost a busy server more memory than it has per call.
func TestAttackS30NumbersAgainstMultipleOfAreBounded(t *testing.T) {
	v, err := Compile(json.RawMessage(numberRulesSchema))
	require.NoError(t, err)
	data := numberList(250_000)
	m, err := Decode(data)
	require.NoError(t, err)
	b := allocatedBytes(func() { err = v.Validate(m) })
	t.Logf("%d bytes of numbers: allocated %d bytes (%.0f times): %.200v", len(data), b, float64(b)/float64(len(data)), err)
	if err != nil {
		var fe *FieldErrors
		require.ErrorAs(t, err, &fe)
		require.NotEmpty(t, fe.Fields)
		assert.Contains(t, fe.Fields[0].Rule, "would take more than", "refused, but not by the work bound: %v", err)
		return
	}
	assert.Less(t, b, 64*uint64(len(data)), "%d bytes of numbers passed the work bound and allocated %d bytes", len(data), b)
}

// Ordinary arguments with numbers under numeric rules pass the bound: a
// few thousand, and hundreds in each of several lists.
func TestNumbersAgainstNumberRulesPass(t *testing.T) {
	v, err := Compile(json.RawMessage(numberRulesSchema))
	require.NoError(t, err)
	for _, count := range []int{1, 300, 5000, 20_000} {
		m, err := Decode(numberList(count))
		require.NoError(t, err)
		assert.NoError(t, v.Validate(m), "%d numbers", count)
	}
	m, err := Decode(numberList(3))
	require.NoError(t, err)
	m["n"].([]any)[1] = json.Number("1.25")
	assert.ErrorContains(t, v.Validate(m), "multipleOf", "1.25 is not a multiple of 0.5")
}
