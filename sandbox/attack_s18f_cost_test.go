package sandbox

import (
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Attack: MatchWithin, which the governance policy's forbidden_paths and
// the approval rules run on every path argument (twice since the names
// are folded too), matched the pattern against each directory above the
// name in turn: quadratic in the name's length. A 128 KiB path of
// one-letter directories took about 9 s of CPU per pattern, per call
// (only max_arg_bytes bounds a path). Matched once against pattern/**
// (which names what lies within a match of pattern) it takes about a
// millisecond. Asserted without a clock: such a name is matched in one
// pass (onePass), with the answer the walk gives.
func TestAttackS18FGlobWithinIsOnePass(t *testing.T) {
	name := strings.Repeat("a/", 64<<10) + "x"
	for _, c := range []struct {
		pattern string
		want    bool
	}{
		{"**/.ssh/**", false},
		{"**/a/x", true},
		{"a/a", true},
		{"/etc/**", false},
		{"a/*/a", true},
	} {
		assert.True(t, onePass(c.pattern, path.Clean(name) == name), "%q: a 128 KiB name is matched in one pass, not a match per directory above it", c.pattern)
		assert.Equal(t, c.want, MatchWithin(c.pattern, name), "%q", c.pattern)
	}
	// The walk's answer, on a name short enough to walk.
	short := strings.Repeat("a/", 64) + "x"
	for _, pattern := range []string{"**/.ssh/**", "**/a/x", "a/a", "a/*/a", "b/**", "a/a/b"} {
		walked := false
		for n := short; n != "." && !walked; n = path.Dir(n) {
			walked = Match(pattern, n)
		}
		assert.Equal(t, walked, MatchWithin(pattern, short), "%q", pattern)
	}
}
