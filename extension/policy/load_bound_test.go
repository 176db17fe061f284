package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
)

// A governance file that is an alias bomb, or too large, is refused with
// its line before anything is built from it.
func TestParseRefusesAnAliasBombAndHugeFiles(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nglobal:\n  forbidden_paths: &x0 [\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\"]\n")
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "  # level %d\n", i)
	}
	b.WriteString("tools:\n")
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "  t%d:\n    forbidden_paths: &x%d [*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d]\n", i, i, i-1)
	}
	_, err := policy.Parse([]byte(b.String()), policy.WithFilename("bomb.yaml"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bomb.yaml:")
	assert.Contains(t, err.Error(), "alias bomb")

	_, err = policy.Parse([]byte("version: 1\n# "+strings.Repeat("x", policy.MaxFileBytes)), policy.WithFilename("huge.yaml"))
	assert.ErrorContains(t, err, "larger than")
}
