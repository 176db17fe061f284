package redact

import (
	"strings"
	"testing"
)

// TestAttackNestedBracketValuesAreDecodedOnce: a text of nested secret
// names ({"password":{"password":... unclosed, after a prefix so it is not
// a JSON document) made bracketEnd decode 64 KiB at every name: 1 MiB
// took 30 s in String and in Args. The JSON decoding maskPairs does is
// bounded by a few times the text's length, and what it masks is kept.
func TestAttackNestedBracketValuesAreDecodedOnce(t *testing.T) {
	for _, unit := range []string{`{"password":`, `{"token":[`, `{"secret":[[`} {
		s := "error: " + strings.Repeat(unit, (256<<10)/len(unit))
		_, read := maskPairsWork(s)
		if read > 2*len(s)+64<<10 {
			t.Errorf("%s...: decoded %d bytes of JSON for a text of %d", unit, read, len(s))
		}
	}
	// Values after such a prefix are still masked whole.
	s := "error: " + strings.Repeat(`{"password":`, 8000) + ` then password={"a": "b c"} and token=[pw]`
	got := String(s)
	if !strings.HasSuffix(got, ` password=`+Mask+` and token=`+Mask) {
		t.Errorf("String(...) ends %q", got[len(got)-80:])
	}
}
