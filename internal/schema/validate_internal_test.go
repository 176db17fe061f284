package schema

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The accept-any-object fast path must be taken only where the full
// validator accepts every object, and must give the same verdicts.
func TestAcceptsAnyObjectAgreesWithTheValidator(t *testing.T) {
	objects := []string{`{}`, `{"a":1}`, `{"a":null,"b":[1,2],"c":{"d":"e"}}`, `{"x":"y"}`}
	cases := []struct {
		schema string
		any    bool
	}{
		{`{"type":"object"}`, true},
		{`{"type":"object","properties":{}}`, true},
		{`{"type":"object","properties":{},"required":[],"additionalProperties":true,"title":"t","description":"d"}`, true},
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, false},
		{`{"type":"object","properties":{},"additionalProperties":false}`, false},
		{`{"type":"object","required":["a"]}`, false},
		{`{"type":"object","minProperties":2}`, false},
		{`{"type":"object","properties":{},"additionalProperties":{"type":"string"}}`, false},
		{`{"properties":{}}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.schema, func(t *testing.T) {
			v, err := Compile(json.RawMessage(tc.schema))
			require.NoError(t, err)
			assert.Equal(t, tc.any, v.anyObject)
			for _, o := range objects {
				m, err := Decode([]byte(o))
				require.NoError(t, err)
				full := v.schema.Validate(m)
				assert.Equal(t, full == nil, v.Validate(m) == nil, "object %s", o)
			}
			// Not an object: always the full validator's verdict.
			assert.Equal(t, v.schema.Validate("text") == nil, v.Validate("text") == nil)
			if tc.any {
				assert.Error(t, v.Validate("text"))
			}
		})
	}
}

func TestIsObject(t *testing.T) {
	for raw, want := range map[string]bool{
		`{}`: true, ` {"a":1} `: true, "\n\t{\"a\":{\"b\":[1,2]}}\r\n": true,
		``: false, `   `: false, `[]`: false, `null`: false, `"x"`: false, `1`: false,
		`{} {}`: false, `{}x`: false, `{"a":}`: false, `{`: false,
	} {
		if got := IsObject([]byte(raw)); got != want {
			t.Errorf("IsObject(%q) = %v, want %v", raw, got, want)
		}
	}
}
