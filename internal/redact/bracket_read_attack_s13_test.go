package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Secret names whose values open a bracket that is not JSON
// (password=[password=[…, token=[1,token=[1,…) made bracketEnd start a
// JSON decoder at each one, and a decoder reads 512 bytes ahead before it
// finds the error two bytes in: 51 bytes decoded a byte of text, and
// Message took 4.5 s over a tool's 10 MiB error, in each of the audit
// trail and the log. The decoding is bounded by a few times the text, as
// for nested names, and what is masked is the same.
func TestAttackUnclosedBracketValuesAreReadOnce(t *testing.T) {
	for _, unit := range []string{`password=[`, `password={`, `token=[1,`, `secret={"a":`, `pwd=["x",`} {
		s := "error: " + strings.Repeat(unit, (256<<10)/len(unit))
		_, read := maskPairsWork(s)
		assert.LessOrEqual(t, read, 2*len(s)+64<<10, "%s...: decoded %d bytes of JSON for a text of %d", unit, read, len(s))
	}
	for _, c := range []struct{ in, want string }{
		{`password=[pw] token={"a":1} x`, `password=` + Mask + ` token=` + Mask + ` x`},
		{`password=[1, 2] ok`, `password=` + Mask + ` ok`},
		{`{"password": ["a", {"b": "c d"}]}, then`, `{"password": ` + Mask + `}, then`},
		{`password=[a b`, `password=[a b`},
		{`secret={"a":"b c"}` + "\n", `secret=` + Mask + "\n"},
		{`token=["\u00e9 x", "\ud83d\ude00 y"] z`, `token=` + Mask + ` z`},
		{`token=["a` + "\x01" + `b c"]`, `token=["a` + "\x01" + `b c"]`},
		{`token=[1e5, -0.5, true, null] z`, `token=` + Mask + ` z`},
	} {
		got, _ := maskPairsWork(c.in)
		assert.Equal(t, c.want, got, c.in)
	}
}
