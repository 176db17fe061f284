package jsonargs

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/toolbelt-go/toolbelt/internal/schema"
)

// decodedBelow is what a decoder finds at segs in the decoded value v, as
// Below reads it: under every key equal to the step without regard to
// case (encoding/json's struct field match), each item of a list, each
// value of a map; null and "" left out. Each value is re-encoded.
func decodedBelow(v any, segs []string, out []string) []string {
	if len(segs) == 0 {
		if v == nil || v == "" {
			return out
		}
		b, _ := json.Marshal(v)
		return append(out, string(b))
	}
	switch x := v.(type) {
	case map[string]any:
		if segs[0] == schema.ItemsStep {
			return out
		}
		for k, e := range x {
			if segs[0] == schema.ValuesStep || strings.EqualFold(k, segs[0]) {
				out = decodedBelow(e, segs[1:], out)
			}
		}
	case []any:
		if segs[0] != schema.ItemsStep {
			return out
		}
		for _, e := range x {
			out = decodedBelow(e, segs[1:], out)
		}
	}
	return out
}

// FuzzBelowAsTheDecoder: in the arguments the executor lets through (one
// valid JSON object, no key twice in an object), Below finds the values
// encoding/json decodes at the path, neither more nor fewer (compared as
// sets of re-encoded values, since a map has no order). The rules judge
// what Below finds: a value it missed would run unjudged.
func FuzzBelowAsTheDecoder(f *testing.F) {
	for _, s := range []string{
		`{"a":{"b":"x"},"A":{"b":"y"},"c":[{"a":1}]}`,
		`{"a":[{"b":"x"},{"b":null},{"b":""},{"B":"z"}],"b":[[1,2],{"b":3}]}`,
		` { "a" : [ [ "x" , "y" ] , [ ] , { } ] , "b" : { "a" : { "a" : "deep" } } } `,
		`{"a":{"\u0062":"esc","ſ":"fold"},"\u0041":["q"],"k":1,"\u212a":2}`,
		`{"a":{"b":"q\"]}\\"}},"s":"[{\"a\":1}]"}`,
		`{"\u0061":[{"\u0062":"\\\"x"}],"a\u0000":"nul"}`,
		"{\"a\":{\"b\":\"\xff\"},\"\xffa\":[1e999,-0,true,false]}",
	} {
		f.Add([]byte(s))
	}
	paths := [][]string{
		{"a"}, {"a", "b"}, {"a", schema.ItemsStep}, {"a", schema.ItemsStep, "b"}, {"a", schema.ItemsStep, schema.ItemsStep},
		{schema.ValuesStep}, {schema.ValuesStep, "b"}, {schema.ValuesStep, schema.ValuesStep}, {"b", "a", "a"},
		{"a", schema.ValuesStep, schema.ItemsStep}, {"s"}, {"k"},
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		var top any
		if d.Decode(&top) != nil || d.More() || !json.Valid(v) || schema.UniqueKeys(v) != nil {
			return // refused by the executor (registry.Entry.CheckArgs)
		}
		if _, ok := top.(map[string]any); !ok {
			return
		}
		for _, segs := range paths {
			want := decodedBelow(top, segs, nil)
			var got []string
			for _, g := range Below(v, segs, nil) {
				d := json.NewDecoder(bytes.NewReader(g))
				d.UseNumber()
				var x any
				if err := d.Decode(&x); err != nil {
					t.Fatalf("%q at %q: Below found %q, which is not JSON", v, segs, g)
				}
				b, _ := json.Marshal(x)
				got = append(got, string(b))
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%q at %q: Below found %q, the decoder %q", v, segs, got, want)
			}
		}
	})
}
