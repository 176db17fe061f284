package canonjson

import (
	"strings"
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

// Two different numbers never share a form beyond 2^53, however they are
// written: 9007199254740993.0 went through a double and came out as
// 9007199254740992, so a cache served the result of one call for the other
// and an approval of one bound the other.
func TestDifferentNumbersStayApart(t *testing.T) {
	for _, pair := range [][2]string{
		{`9007199254740993.0`, `9007199254740992`},
		{`9.007199254740993e15`, `9007199254740992`},
		{`9007199254740993e0`, `9007199254740992`},
		{`90071992547409930e-1`, `9007199254740992`},
		{`-9007199254740993.0`, `-9007199254740992`},
		{`9007199254740993.5`, `9007199254740994`},
		{`9007199254740992.5`, `9007199254740992`},
		{`12345678901234567890.5`, `12345678901234567000`},
		{`1.2345678901234567891e19`, `12345678901234567890`},
		{`1000000000000000000001`, `1e21`},
	} {
		a, err := Canonical([]byte(pair[0]))
		require.NoError(t, err, pair[0])
		b, err := Canonical([]byte(pair[1]))
		require.NoError(t, err, pair[1])
		assert.NotEqual(t, string(a), string(b), "%s and %s are different numbers", pair[0], pair[1])
	}
}

// The same number written differently has one form: -0 is 0 (RFC 8785),
// and an integer beyond 2^53 keeps its digits whether it is written with a
// fraction or an exponent or not.
func TestSameNumberOneForm(t *testing.T) {
	for want, lits := range map[string][]string{
		"0":                       {`0`, `-0`, `-0.0`, `0e5`, `-0e-5`, `0.000`, `-0.0E+3`},
		"1":                       {`1`, `1.0`, `1e0`, `10e-1`, `0.1e1`},
		"9007199254740993":        {`9007199254740993`, `9007199254740993.0`, `9.007199254740993e15`, `9007199254740993e0`, `90071992547409930e-1`, `0.9007199254740993E16`},
		"-9007199254740993":       {`-9007199254740993`, `-9007199254740993.000`, `-9.007199254740993e+15`},
		"9007199254740993.5":      {`9007199254740993.5`, `9007199254740993.50`, `90071992547409935e-1`},
		"12345678901234567890":    {`12345678901234567890`, `1.234567890123456789e19`, `12345678901234567890.0`},
		"12345678901234567000":    {`12345678901234567000`, `1.2345678901234567e19`},
		"1e+21":                   {`1e21`, `1000000000000000000000`, `1000000000000000000000.0`, `10E20`},
		"1e+30":                   {`1e30`, `1E30`, `1000000000000000000000000000000`},
		"100000000000000000000":   {`1e20`, `100000000000000000000`},
		"1.7976931348623157e+308": {`1.7976931348623157e308`, `17976931348623157` + strings.Repeat("0", 292)},
	} {
		for _, lit := range lits {
			got, err := Canonical([]byte(lit))
			require.NoError(t, err, lit)
			assert.Equal(t, want, string(got), lit)
		}
	}
	// Beyond the doubles, however written: refused alike.
	for _, lit := range []string{`1e400`, `1` + strings.Repeat("0", 400), `-1` + strings.Repeat("0", 400) + `.5`} {
		_, err := Canonical([]byte(lit))
		assert.Error(t, err, lit)
	}
}
