package dashboard

import (
	"bytes"
	"encoding/json"
	"testing"
)

// indentArgs writes what json.Indent writes for text already written the
// way it writes strings, and refuses what is not one JSON value.
func TestIndentArgs(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `{"a":{}}`, `{"a":[]}`, `{"a":[1,[2,{"b":null}],true,false,"x"]}`,
		`{"a":{"b":{"c":-0.5e-3}},"d":"<img> & \"q\" \\ é"}`, `"text"`, `12`, `null`, `[{"k":1},{"k":2}]`,
	} {
		got, ok := indentArgs([]byte(in))
		if !ok {
			t.Errorf("%s: refused", in)
			continue
		}
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(in), "", "  "); err != nil {
			t.Fatal(err)
		}
		if string(got) != want.String() {
			t.Errorf("%s:\ngot  %s\nwant %s", in, got, want.String())
		}
	}
	got, ok := indentArgs([]byte(` {"p":"\u0070ath\u202e<"} `))
	if !ok || string(got) != "{\n  \"p\": \"path\u202e<\"\n}" {
		t.Errorf("strings are written from their text: %q %v", got, ok)
	}
	for _, bad := range []string{``, `{`, `{"a"}`, `{"a":1,}`, `[1]]`, `{} {}`, `1 2`, `{"a":1}x`, `[1,]`} {
		if got, ok := indentArgs([]byte(bad)); ok {
			t.Errorf("%q: accepted as %q", bad, got)
		}
	}
}

// FuzzIndentArgs: indentArgs never panics, and what it writes is JSON with
// the same tokens.
func FuzzIndentArgs(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,{"b":null}],"a":"x"}`, `]`, `}`, `[1]]`, `"\u0070"`, `{"a":1e400}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, ok := indentArgs(in)
		if !ok {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q: wrote %q, not JSON", in, out)
		}
		a, b := json.NewDecoder(bytes.NewReader(in)), json.NewDecoder(bytes.NewReader(out))
		a.UseNumber()
		b.UseNumber()
		for {
			x, errA := a.Token()
			y, errB := b.Token()
			if (errA == nil) != (errB == nil) || x != y {
				t.Fatalf("%q: %v (%v) vs %v (%v)", in, x, errA, y, errB)
			}
			if errA != nil {
				return
			}
		}
	})
}
