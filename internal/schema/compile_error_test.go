package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A schema that breaks the meta-schema in several places gets one message,
// the same every time, naming each place by its JSON pointer and what is
// wrong there. The validator's own error named one of them at random (it
// walks a map): the same tool file gave three different messages in 50
// loads, each through a forty-segment meta-schema path.
func TestCompileErrorIsStableAndNamesEveryPlace(t *testing.T) {
	raw := []byte(`{"type":"object","properties":{"a":{"type":"bogus"},"b":{"type":"bogus2"},"c":{"minimum":"x"}}}`)
	_, err := Compile(raw)
	require.Error(t, err)
	first := err.Error()
	for range 50 {
		_, err := Compile(raw)
		require.Equal(t, first, err.Error(), "the message changed between two compiles of one schema")
	}
	assert.Equal(t, `schema does not compile: at /properties/a/type: value must be one of "array", "boolean", "integer", "null", "number", "object", "string"; `+
		`at /properties/b/type: value must be one of "array", "boolean", "integer", "null", "number", "object", "string"; `+
		`at /properties/c/minimum: expected number, but got string`, first)
}

// At most maxSchemaProblems places are listed, and how many more there are.
func TestCompileErrorListsAFewPlaces(t *testing.T) {
	raw := []byte(`{"type":"object","properties":{"a":{"minimum":"x"},"b":{"minimum":"x"},"c":{"minimum":"x"},"d":{"minimum":"x"},"e":{"minimum":"x"},"f":{"minimum":"x"},"g":{"minimum":"x"}}}`)
	_, err := Compile(raw)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at /properties/a/minimum: expected number, but got string")
	assert.Contains(t, err.Error(), "at /properties/e/minimum")
	assert.NotContains(t, err.Error(), "/properties/f/")
	assert.Contains(t, err.Error(), "and 2 more places")
}
