package policy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTopFields(t *testing.T) {
	cases := []struct {
		name, args string
		want       [][2]string // key, raw value; nil: not an object
	}{
		{"empty object", ` { } `, [][2]string{}},
		{"flat", `{"path":"/a","n":1.5e3,"b":true,"z":null}`, [][2]string{{"path", `"/a"`}, {"n", "1.5e3"}, {"b", "true"}, {"z", "null"}}},
		{"spaces", "{ \"a\" :\n \"x y\" , \"b\":[1, 2] }", [][2]string{{"a", `"x y"`}, {"b", "[1, 2]"}}},
		{"nested with brackets in strings", `{"o":{"k":"}]\"{"},"p":"q"}`, [][2]string{{"o", `{"k":"}]\"{"}`}, {"p", `"q"`}}},
		{"escaped key", `{"pa\u0074h":"/etc"}`, [][2]string{{"path", `"/etc"`}}},
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
			got, ok := topFields([]byte(tc.args), nil)
			if tc.want == nil {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			pairs := [][2]string{}
			for _, f := range got {
				pairs = append(pairs, [2]string{string(f.key), string(f.val)})
			}
			assert.Equal(t, tc.want, pairs)
		})
	}
}

// topFields must agree with json.Unmarshal into a map on valid objects (the
// last duplicate wins there).
func FuzzTopFields(f *testing.F) {
	f.Add(`{"path":"/a","n":[1,{"x":"]"}],"k\"":"v"}`)
	f.Add(`{"a":1,"a":2}`)
	f.Fuzz(func(t *testing.T, args string) {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(args), &m) != nil || m == nil {
			return
		}
		got, ok := topFields([]byte(args), nil)
		require.True(t, ok, "a valid object: %s", args)
		for k, v := range m {
			raw, ok := lastField(got, k)
			require.True(t, ok, "key %q", k)
			assert.Equal(t, strings.TrimSpace(string(v)), string(raw), "key %q", k)
		}
		assert.LessOrEqual(t, len(m), len(got))
	})
}

// TestValueSize checks that counting a string's bytes without decoding it
// gives what decoding gives: a string counts its decoded bytes, anything
// else (or a malformed string) its raw JSON.
func TestValueSize(t *testing.T) {
	for _, v := range []string{
		`""`, `"hello"`, `"héllo"`, `"a\"b"`, `"a\\b"`, `"\u00e9"`, `"a` + "\x01" + `b"`, `"a` + "\xff" + `b"`,
		`"a"b"`, `"`, `12`, `{"a":"b"}`, `["x"]`, `null`,
	} {
		want := int64(len(v))
		var s string
		if v[0] == '"' && json.Unmarshal([]byte(v), &s) == nil {
			want = int64(len(s))
		}
		assert.Equal(t, want, valueSize(json.RawMessage(v)), "%q", v)
	}
}
