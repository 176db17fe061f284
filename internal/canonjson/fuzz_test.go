package canonjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzCanonical feeds Canonical hostile JSON (arguments a model wrote):
// whatever it accepts, its output is valid JSON, canonical already
// (Canonical(Canonical(x)) == Canonical(x)) and, where the value fits
// doubles, the same value as the input.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,false,null],"c":{"z":"\u20ac","y":"\n"}}`,
		`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001]}`,
		`{"a":1,"a":2}`,
		`{"\u00e9":1,"e\u0301":2,"\ud83d\ude00":3,"\uffff":4}`,
		`"\ud800"`, `"\udc00\ud800"`, "\"\xff\xfe\"", "{\"\xff\":1,\"\xfe\":2}",
		`-0`, `0.0`, `1e21`, `1e-7`, `5e-324`, `1E400000`, `-1e400`,
		`9007199254740993`, `-9007199254740993`, `123456789012345678901234567890`,
		`1.7976931348623157e308`, `0.1e-400`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000),
		`{"a":1} {"b":2}`, `{"a":1}x`, `{"a":`, ``, ` `, "\x00", `nul`, `"\u0000\u001f\u007f"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, err := Canonical(raw)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Canonical(%q) = %q: not valid JSON", raw, out)
		}
		again, err := Canonical(out)
		if err != nil {
			t.Fatalf("Canonical(%q) = %q, which Canonical refuses: %v", raw, out, err)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: Canonical(%q) = %q, Canonical of that = %q", raw, out, again)
		}
		// The same value: compared as doubles (which is what RFC 8785
		// canonicalises), when the input's numbers all fit one.
		var in, canon any
		if json.Unmarshal(raw, &in) != nil {
			return
		}
		if err := json.Unmarshal(out, &canon); err != nil {
			t.Fatalf("Canonical(%q) = %q, which does not decode: %v", raw, out, err)
		}
		if !reflect.DeepEqual(in, canon) {
			t.Fatalf("Canonical(%q) = %q: a different value (%v, was %v)", raw, out, canon, in)
		}
	})
}
