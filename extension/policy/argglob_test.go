package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// globBounded finds what filepath.Glob finds, within its bound, and for
// a "**" segment what doublestar finds.
func TestGlobBoundedAsFilepathGlob(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a/x.txt", "a/.h", "b/c/y.txt", "b/z.go", "[s]/k"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	for _, g := range []string{"*", "*/*", "*/*.txt", "a/*", "b/*/y.txt", "?/c", "[ab]/*", "\\[s]/k", "*/.*", "a/x.txt", "none/*", "[", "**/y.txt", "b/**", "**/c/*", "a/**/*.txt", "[a-c]/*.txt", "b/[xz].go", "[s]/k", "[]a]/k", "[a-]/x.txt", "[b][!x]/y.txt"} {
		want, err := filepath.Glob(filepath.Join(dir, g))
		if strings.Contains(g, "**") {
			// A "**" segment is read as doublestar reads it.
			want, err = doublestar.FilepathGlob(filepath.Join(dir, g))
		}
		if err != nil {
			want = nil
		}
		left := maxGlobEntries
		got, ok := globBounded(dir+string(filepath.Separator)+g, &left)
		require.True(t, ok, g)
		assert.ElementsMatch(t, want, got, g)
	}
	left := 2
	_, ok := globBounded(filepath.Join(dir, "*"), &left)
	assert.False(t, ok, "three entries (a, b, [s]) are more than two")
}
