package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// dupKeysRef reports whether valid JSON data names a key twice in one
// object, keys read by encoding/json's decoder: the reference UniqueKeys
// must agree with.
func dupKeysRef(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys    map[string]bool // nil: an array
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return false
		}
		if err != nil {
			return false // not valid JSON: UniqueKeys's result is unspecified
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, &frame{keys: map[string]bool{}, wantKey: true})
				continue
			case '[':
				stack = append(stack, &frame{})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if top != nil && top.keys != nil && top.wantKey {
				if top.keys[v] {
					return true
				}
				top.keys[v] = true
				top.wantKey = false
				continue
			}
		}
		// A value ended: the enclosing object wants its next key.
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].wantKey = true
		}
	}
}

// FuzzUniqueKeys checks UniqueKeys against a decoder on any valid JSON (a
// model's arguments), and that it never panics on text that is not JSON.
func FuzzUniqueKeys(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1,"a":2}`, `{"a":{"b":1,"b":2}}`, `{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}`,
		`{"a":"x\\","a":"\\\"","b":1}`, `{"a":"\\\"a\":","b":1}`, `{"\u0061":1,"a":2}`,
		`{"\ud800":1,"\udc00":2}`, "{\"\xff\":1,\"\xfe\":2}", "{\"\xff\":1,\"\\ufffd\":2}",
		`{"a":[1,{"a":1}],"b":[],"a ":{}}`, `[{"a":1},{"a":1}]`, `"a"`, `[]`,
		`]"a"`, `{"a`, `{"a\`, `{"a":"b`, `}}}{"a":1,"a":1`, "\x00",
		`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18,"k19":19,"k20":20,"k21":21,"k22":22,"k23":23,"k24":24,"k25":25,"k26":26,"k27":27,"k28":28,"k29":29,"k30":30,"k31":31,"k32":32,"k33":33,"k34":34,"k35":35,"k36":36,"k37":37,"k38":38,"k39":39,"k40":40,"k41":41,"k42":42,"k43":43,"k44":44,"k45":45,"k46":46,"k47":47,"k48":48,"k49":49,"k50":50,"k51":51,"k52":52,"k53":53,"k54":54,"k55":55,"k56":56,"k57":57,"k58":58,"k59":59,"k60":60,"k61":61,"k62":62,"k63":63,"k64":64,"k\u0031":1}`,
		strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := UniqueKeys(data)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("UniqueKeys(%q) = %T, want a *DecodeError", data, err)
			}
		}
		if !json.Valid(data) {
			return
		}
		if got, want := err != nil, dupKeysRef(data); got != want {
			t.Fatalf("UniqueKeys(%q) = %v, but a decoder finds a duplicate key: %v", data, err, want)
		}
	})
}

// fuzzSchema is a schema with the keywords whose errors format() rewrites.
const fuzzSchema = `{"type":"object","properties":{
	"path":{"type":"string","format":"uri-reference","maxLength":64},
	"n":{"type":"integer","minimum":0,"maximum":100},
	"mode":{"enum":["a","b",null]},
	"items":{"type":"array","maxItems":4,"items":{"type":"object","properties":{"key":{"type":"string"},"v":{"anyOf":[{"type":"number"},{"type":"boolean"}]}},"required":["key"],"additionalProperties":false}},
	"opt":{"type":"string"},
	"nested":{"type":"object","properties":{"token":{"type":"string","pattern":"^[a-z]+$"}}}
},"required":["path"],"additionalProperties":false}`

// FuzzDecodeValidate runs hostile arguments through what the registry runs
// them through: Decode, StripNulls, Validate. Nothing panics; Decode
// accepts exactly one JSON object; what it returns re-encodes to JSON that
// decodes to the same; errors are the documented types.
func FuzzDecodeValidate(f *testing.F) {
	v, err := Compile(json.RawMessage(fuzzSchema))
	if err != nil {
		f.Fatal(err)
	}
	v = v.WithSecrets([]string{"nested.token", "items[].key"})
	for _, s := range []string{
		`{"path":"a/b","n":5,"mode":"a","items":[{"key":"k","v":1}],"opt":null}`,
		`{"path":"a/b","n":500,"mode":"c","items":[{"v":"x","extra":1}],"nested":{"token":"ABC"}}`,
		`{"path":1e400}`, `{"path":"x","n":1.5}`, `{"path":"x","n":123456789012345678901234567890}`,
		`{"path":"\ud800","items":[{},{},{},{},{}]}`, `{"~1/":1,"a~0b":2,"0":3}`,
		`{"path":"x"} {}`, `{"path":"x"}]`, `[]`, `null`, `"x"`, ``, "\x00", `{"a":1,"a":2}`,
		strings.Repeat(`{"a":`, 5000) + `1` + strings.Repeat(`}`, 5000),
		strings.Repeat(`[`, 20000) + strings.Repeat(`]`, 20000),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Decode(%q) = %T, want a *DecodeError", data, err)
			}
			if m != nil {
				t.Fatalf("Decode(%q) failed but returned %v", data, m)
			}
			return
		}
		if m == nil {
			t.Fatalf("Decode(%q) = nil map, no error", data)
		}
		if !IsObject(data) {
			t.Fatalf("Decode accepted %q, which IsObject refuses", data)
		}
		v.StripNulls(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("Decode(%q) returned a value that does not re-encode: %v", data, err)
		}
		m2, err := Decode(b)
		if err != nil {
			t.Fatalf("re-encoded arguments %q do not decode: %v", b, err)
		}
		if b2, _ := json.Marshal(m2); !bytes.Equal(b, b2) {
			t.Fatalf("arguments change on a second round: %q then %q", b, b2)
		}
		if err := v.Validate(m); err != nil {
			var fe *FieldErrors
			if !errors.As(err, &fe) || len(fe.Fields) == 0 {
				t.Fatalf("Validate(%q) = %v (%T), want *FieldErrors with fields", data, err, err)
			}
			for _, f := range fe.Fields {
				if f.Path == "" || f.Rule == "" {
					t.Fatalf("Validate(%q): a field error without path or rule: %+v", data, f)
				}
			}
		}
	})
}
