package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bytesPerUnit validates args against raw and returns how many bytes
// Validate allocated per unit of work the cost walk charged for them.
func bytesPerUnit(t *testing.T, raw, args string) (float64, error) {
	t.Helper()
	v, err := Compile(json.RawMessage(raw))
	require.NoError(t, err)
	m, err := Decode([]byte(args))
	require.NoError(t, err)
	w := &costWalk{times: 1}
	w.apply(v.schema, m)
	b := allocatedBytes(func() { err = v.Validate(m) })
	return float64(b) / w.work, err
}

// The work bound charges each value checked some 400 bytes of the
// validator's own (its result and location per value: a unit), and an
// exact fraction (fmt.Sprint, big.Rat) more for each rule that makes one.
// "type":"integer" makes one for every number to see whether it is whole,
// and was charged nothing for it: 15,000 numbers of 54 digits and an
// exponent of 399 (855 KB) allocated 1,915 bytes per unit, plain values
// 333. (Values that fail allocate their errors too, 500 to 1,250 bytes
// per unit, which the walk cannot tell in advance: not asserted here.)
func TestAttackS31IntegerTypeIsCharged(t *testing.T) {
	list := func(n int, num string) string {
		return `{"n":[` + strings.TrimSuffix(strings.Repeat(num+",", n), ",") + `]}`
	}
	heavy := "9.9999999999999999999999999999999999999999999999999999e399"
	long := "123456789012345678901234567890123456789012345678901234567890123"
	for name, c := range map[string]struct{ raw, args string }{
		"plain numbers":          {`{"type":"object","properties":{"n":{"type":"array","items":{"type":"number"}}}}`, list(50_000, "1")},
		"plain strings":          {`{"type":"object","properties":{"n":{"type":"array","items":{"type":"string"}}}}`, list(50_000, `"a"`)},
		"integer, short":         {`{"type":"object","properties":{"n":{"type":"array","items":{"type":"integer"}}}}`, list(50_000, "1.0")},
		"integer, long":          {`{"type":"object","properties":{"n":{"type":"array","items":{"type":"integer"}}}}`, list(15_000, long)},
		"integer, heavy":         {`{"type":"object","properties":{"n":{"type":"array","items":{"type":"integer"}}}}`, list(15_000, heavy)},
		"integer list, heavy":    {`{"type":"object","properties":{"n":{"type":"array","items":{"type":["string","integer"]}}}}`, list(15_000, heavy)},
		"integer anyOf, heavy":   {`{"type":"object","properties":{"n":{"type":"array","items":{"anyOf":[{"type":"integer"},{"type":"integer"},{"type":"integer"}]}}}}`, list(5_000, heavy)},
		"integer multipleOf":     {`{"type":"object","properties":{"n":{"type":"array","items":{"type":"integer","multipleOf":3}}}}`, list(15_000, long)},
		"integer minimum, heavy": {`{"type":"object","properties":{"n":{"type":"array","items":{"type":"integer","minimum":0}}}}`, list(15_000, heavy)},
	} {
		per, err := bytesPerUnit(t, c.raw, c.args)
		t.Logf("%s: %.0f bytes per unit: %.80v", name, per, err)
		assert.Less(t, per, 640.0, "%s: %.0f bytes allocated per unit of work charged", name, per)
	}
	// 1 MB of one-digit integers still passes the bound.
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"n":{"type":"array","items":{"type":"integer"}}}}`))
	require.NoError(t, err)
	m, err := Decode([]byte(list(500_000, "1")))
	require.NoError(t, err)
	assert.NoError(t, v.Validate(m))
}
