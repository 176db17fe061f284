package tool

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The name pattern the docs give is the one registration enforces.
func TestDocumentedNamePatternIsEnforcedOne(t *testing.T) {
	doc, err := os.ReadFile("../docs/providers.md")
	require.NoError(t, err)
	m := regexp.MustCompile("Tool names valid for every provider match `([^`]+)`").FindSubmatch(doc)
	require.NotNil(t, m, "docs/providers.md no longer states the tool-name pattern")
	assert.Equal(t, nameRE.String(), string(m[1]))

	// The refusal of a bad name quotes the same pattern, and Spec.Name's
	// godoc states it.
	err = CheckName("9lives")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(pattern "+nameRE.String()+")")
	src, err := os.ReadFile("spec.go")
	require.NoError(t, err)
	assert.Contains(t, string(src), "// Name is unique in a registry and valid for every provider:\n\t// "+nameRE.String()+".")
}
