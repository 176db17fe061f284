package sandbox_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// Attack: MatchWithin, which the governance policy's forbidden_paths and
// the approval rules run on every path argument (twice since the names
// are folded too), matched the pattern against each directory above the
// name in turn: quadratic in the name's length. A 128 KiB path of
// one-letter directories took about 9 s of CPU per pattern, per call
// (only max_arg_bytes bounds a path). Matched once against pattern/**
// (which names what lies within a match of pattern) it takes about a
// millisecond; the bound below is a thousand times that, for a loaded
// machine under -race.
func TestAttackS18FGlobWithinCostIsLinear(t *testing.T) {
	name := strings.Repeat("a/", 64<<10) + "x"
	for _, c := range []struct {
		pattern string
		want    bool
	}{
		{"**/.ssh/**", false},
		{"**/a/x", true},
		{"a/a", true},
	} {
		start := time.Now()
		got := sandbox.MatchWithin(c.pattern, name)
		took := time.Since(start)
		assert.Equal(t, c.want, got, "%q", c.pattern)
		assert.Less(t, took, time.Second, "%q: one 128 KiB name", c.pattern)
	}
}
