package policy

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

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
