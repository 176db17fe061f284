package canonjson

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The examples of RFC 8785 and the number table of its Appendix B.
func TestRFC8785(t *testing.T) {
	in := `{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	got, err := Canonical([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, want, string(got))

	for lit, want := range map[string]string{
		"0": "0", "-0": "0", "1.0": "1", "1e0": "1", "10e-1": "1", "4.50": "4.5", "2e-3": "0.002",
		"1e21": "1e+21", "1e20": "100000000000000000000", "123e-20": "1.23e-18", "0.000001": "0.000001",
		"0.0000001": "1e-7", "9007199254740992": "9007199254740992", "5e-324": "5e-324",
		"1.7976931348623157e308": "1.7976931348623157e+308", "-1.5": "-1.5", "1E400000": "",
		"12345678901234567890": "12345678901234567890", "12345678901234567891": "12345678901234567891",
	} {
		got, err := Canonical([]byte(lit))
		if want == "" {
			assert.Error(t, err, "%s is not a finite double", lit)
			continue
		}
		require.NoError(t, err, lit)
		assert.Equal(t, want, string(got), lit)
	}
}

// Members are sorted by UTF-16 code units, not bytes: U+1F600 (a surrogate
// pair starting 0xD83D) sorts before U+FB33 in UTF-16, after it in UTF-8.
func TestSortByUTF16(t *testing.T) {
	got, err := Canonical([]byte(`{"\ud83d\ude00":1,"\ufb33":2,"a":3,"\u00e9":4}`))
	require.NoError(t, err)
	assert.Equal(t, "{\"a\":3,\"\u00e9\":4,\"\U0001F600\":1,\"\ufb33\":2}", string(got))
}

func TestRejects(t *testing.T) {
	for _, bad := range []string{``, `{`, `{"a":1} x`, `[1,]`, `NaN`} {
		_, err := Canonical([]byte(bad))
		assert.Error(t, err, bad)
	}
}
