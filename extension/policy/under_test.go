package policy

import (
	"path"
	"testing"

	"github.com/stretchr/testify/assert"
)

// under is path.Join for the clean absolute directories and clean
// relative names that do not climb out which checkSpelt gives it.
func TestUnderIsPathJoin(t *testing.T) {
	dirs := []string{"/", "/w", "/work/main/internal", "/a b/c~1", "/.ssh"}
	names := []string{".", "a", "a/b", "sandbox escape", ".env", "..a", "a/..b", "...", "~", "a\\..\\b"}
	for _, d := range dirs {
		for _, n := range names {
			assert.Equal(t, path.Join(d, n), under(d, n), "under(%q, %q)", d, n)
		}
	}
}
