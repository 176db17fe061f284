package jsonargs

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/internal/schema"
)

func TestMembers(t *testing.T) {
	cases := []struct {
		name, args string
		want       [][2]string // key, raw value; nil: not an object
	}{
		{"empty object", ` { } `, [][2]string{}},
		{"flat", `{"path":"/a","n":1.5e3,"b":true,"z":null}`, [][2]string{{"path", `"/a"`}, {"n", "1.5e3"}, {"b", "true"}, {"z", "null"}}},
		{"spaces", "{ \"a\" :\n \"x y\" , \"b\":[1, 2] }", [][2]string{{"a", `"x y"`}, {"b", "[1, 2]"}}},
		{"nested with brackets in strings", `{"o":{"k":"}]\"{"},"p":"q"}`, [][2]string{{"o", `{"k":"}]\"{"}`}, {"p", `"q"`}}},
		{"escaped key", `{"pa\u0074h":"/etc"}`, [][2]string{{"path", `"/etc"`}}},
		{"invalid UTF-8 key", "{\"pa\xffth\":1}", [][2]string{{"pa\ufffdth", "1"}}},
		{"duplicates kept in order", `{"path":"/ok","path":"/etc/x"}`, [][2]string{{"path", `"/ok"`}, {"path", `"/etc/x"`}}},
		{"array", `["path"]`, nil},
		{"string", `"x"`, nil},
		{"truncated", `{"a":"x"`, nil},
		{"unterminated string", `{"a":"x}`, nil},
		{"trailing data", `{"a":1} {}`, nil},
		{"missing colon", `{"a" 1}`, nil},
		{"unbalanced", `{"a":[1}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Members([]byte(tc.args), nil)
			if tc.want == nil {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			pairs := [][2]string{}
			for _, m := range got {
				pairs = append(pairs, [2]string{m.Key, string(m.Val)})
			}
			assert.Equal(t, tc.want, pairs)
		})
	}
}

// decoded reads the members of the JSON object v with encoding/json's
// decoder, token by token: the reading Members must agree with.
func decoded(v []byte) ([]Member, bool) {
	dec := json.NewDecoder(bytes.NewReader(v))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	out := []Member{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, false
		}
		out = append(out, Member{Key: t.(string), Val: val})
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return out, true
}

// On every JSON object encoding/json accepts, Members gives the members
// its decoder reads, in order, duplicates and escaped keys included: a
// rule must never judge other arguments than a tool receives.
func FuzzMembersAsTheDecoder(f *testing.F) {
	for _, s := range []string{
		`{"path":"/a","n":[1,{"x":"]"}],"k\"":"v"}`, `{"a":1,"a":2}`, `{"P\u0041TH":"x","path":"y"}`,
		"{\"\xff\":1}", `{"a":"\ud800"}`, ` {"a" : { "b" : [ ] } } `, `{}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		want, ok := decoded([]byte(args))
		if !ok || !json.Valid([]byte(args)) {
			return
		}
		got, ok := Members([]byte(args), nil)
		require.True(t, ok, "a valid object: %q", args)
		if len(got) == 0 {
			got = []Member{}
		}
		require.Equal(t, want, got, "%q", args)
	})
}

func TestSameKeyAndValues(t *testing.T) {
	ms, ok := Members([]byte(`{"path":"a","PATH":"b","ſrc":"c","pathx":"d"}`), nil)
	require.True(t, ok)
	assert.Equal(t, []json.RawMessage{json.RawMessage(`"a"`), json.RawMessage(`"b"`)}, Values(ms, "path"))
	assert.Equal(t, []json.RawMessage{json.RawMessage(`"c"`)}, Values(ms, "src"), "U+017F folds to s, as encoding/json reads it")
	assert.Empty(t, Values(ms, "dst"))
}

func TestBelow(t *testing.T) {
	args := []byte(`{"files":[{"name":"a"},{"Name":"b"},{"name":null},{"name":""}],"opts":{"backup":"c"},"m":{"x":{"p":"d"},"y":{"p":"e"}}}`)
	var got []string
	for _, v := range Below(args, []string{"files", schema.ItemsStep, "name"}, nil) {
		got = append(got, string(v))
	}
	assert.Equal(t, []string{`"a"`, `"b"`}, got, "every item, every key a decoder takes, null and \"\" left out")
	assert.Equal(t, []json.RawMessage{json.RawMessage(`"c"`)}, Below(args, []string{"opts", "backup"}, nil))
	got = nil
	for _, v := range Below(args, []string{"m", schema.ValuesStep, "p"}, nil) {
		got = append(got, string(v))
	}
	assert.Equal(t, []string{`"d"`, `"e"`}, got)
	assert.Empty(t, Below(args, []string{"opts", "missing"}, nil))
}
