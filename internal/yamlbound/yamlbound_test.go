package yamlbound

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// Bomb returns a "billion laughs" document: levels anchors, each a list of
// ten aliases of the one before, expanding to 10^levels strings.
func Bomb(levels int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	return b.String()
}

func decode(t *testing.T, s string) *yaml.Node {
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(s), &doc))
	return &doc
}

func TestCheck(t *testing.T) {
	assert.NoError(t, Check(decode(t, "tools:\n  - name: x\n    input_schema: {type: object}\n"), 0, 0))
	assert.NoError(t, Check(decode(t, Bomb(2)), 0, 0), "a hundred strings is fine")

	err := Check(decode(t, Bomb(9)), 0, 0)
	var be *Error
	require.ErrorAs(t, err, &be)
	assert.Contains(t, be.Message, "alias bomb")
	assert.Greater(t, be.Line, 1, "the line of the alias that went past the bound")

	deep := strings.Repeat("[", 150) + strings.Repeat("]", 150)
	err = Check(decode(t, deep), 0, 0)
	require.ErrorAs(t, err, &be)
	assert.Contains(t, be.Message, "deeper than 100")
}
