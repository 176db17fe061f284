package policy_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
)

// The session's other readings of a path argument (its blank-separated
// words, an option's or an operand's value, a name with its NTFS stream
// cut off, a path under another path's directory) are judged by the
// forbidden patterns, not by allowed_paths, which judge the path as
// written: "docs/My Report.pdf" under "docs/**" was refused for its word
// "Report.pdf", "logs/2024-01-01T10:00:00.log" under "logs/*.log" as
// "logs/2024-01-01T10", "year=2024/x.parquet" under "year=*/**" for its
// value "2024/x.parquet" (seen failing first: all three refused).
func TestS27ReadingsOfAnAllowedPathAreJudgedByForbiddenPatternsOnly(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	p, err := policy.Parse([]byte(`
global:
  allowed_paths: ["docs/**", "logs/*.log", "year=*/**"]
  forbidden_paths: ["secrets/**", ".env"]
`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	for _, path := range []string{"docs/My Report.pdf", "logs/2024-01-01T10:00:00.log", "year=2024/x.parquet", "docs/a b/c d.md"} {
		_, err := judgePath(t, p, path)
		assert.NoError(t, err, "%q is under an allowed path as written", path)
	}
	// Forbidden patterns still judge every reading.
	for _, path := range []string{"docs/a secrets/key", "docs/a --file=.env", "docs/x .env"} {
		_, err := judgePath(t, p, path)
		assert.Error(t, err, "%q names a forbidden file in one of its readings", path)
	}
	// And the path as written must still be allowed.
	_, err = judgePath(t, p, "notes/My Report.pdf")
	assert.Error(t, err)
}
