package canonjson

import (
	"bytes"
	"encoding/json"
	"math/big"
	"reflect"
	"regexp"
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
		`9007199254740993.0`, `9.007199254740993e15`, `90071992547409930e-1`, `9007199254740992.5`,
		`-9007199254740993.000`, `12345678901234567890.5`, `1000000000000000000000`, `-0.0e-5`, `-0E+3`,
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

// jsonNumber is a JSON number with an exponent small enough for big.Rat.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]{1,3})?$`)

// FuzzNumbersApart checks the number forms against exact arithmetic
// (math/big): the same number, however written, has one form; two
// different numbers share a form only when both are within 2^53 and
// round to the same double (as RFC 8785 has it).
func FuzzNumbersApart(f *testing.F) {
	for _, p := range [][2]string{
		{`9007199254740993.0`, `9007199254740992`}, {`9007199254740993`, `9.007199254740993e15`},
		{`-0`, `0`}, {`-0.0e-5`, `0E+3`}, {`1.0`, `1`}, {`1e2`, `100`}, {`0.1`, `0.10000000000000000001`},
		{`9007199254740993.5`, `9007199254740994`}, {`9007199254740991.7`, `9007199254740992`},
		{`1e21`, `1000000000000000000000`}, {`1e30`, `1000000000000000000000000000001`},
		{`12345678901234567890.5`, `12345678901234567000`}, {`1.7976931348623157e308`, `1.7976931348623158e308`},
	} {
		f.Add(p[0], p[1])
	}
	limit := new(big.Rat).SetInt64(maxExact)
	f.Fuzz(func(t *testing.T, a, b string) {
		if !jsonNumber.MatchString(a) || !jsonNumber.MatchString(b) {
			return
		}
		ca, errA := Canonical([]byte(a))
		cb, errB := Canonical([]byte(b))
		if errA != nil || errB != nil {
			return
		}
		ra, _ := new(big.Rat).SetString(a)
		rb, _ := new(big.Rat).SetString(b)
		same := ra.Cmp(rb) == 0
		if same && !bytes.Equal(ca, cb) {
			t.Fatalf("%s and %s are the same number: %s and %s", a, b, ca, cb)
		}
		within := new(big.Rat).Abs(ra).Cmp(limit) <= 0 && new(big.Rat).Abs(rb).Cmp(limit) <= 0
		if !same && bytes.Equal(ca, cb) && !within {
			t.Fatalf("%s and %s are different numbers beyond 2^53, both %s", a, b, ca)
		}
	})
}
