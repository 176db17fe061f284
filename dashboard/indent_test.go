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
