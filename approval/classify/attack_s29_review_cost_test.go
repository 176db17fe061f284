package classify

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s29ReviewLines are lines that grow with n through the code this
// session's seven classify commits and their review added: clones and
// downloads then kubectl or helm reading many files, repositories helm
// repo add added then many charts, secrets staged then pushes, gh's
// text, cargo add --git then builds, renames and copies of a download,
// gh repo fork's options, and downloads into directories kubectl reads.
var s29ReviewLines = map[string]func(n int) string{
	"clones then kubectl -f": func(n int) string {
		return strings.Repeat("git clone u r; ", n/30) + "kubectl apply " + strings.Repeat("-f a ", n/12)
	},
	"clones then helm charts": func(n int) string {
		return strings.Repeat("git clone u r; ", n/30) + "helm install " + strings.Repeat("a ", n/4)
	},
	"helm repos then charts": func(n int) string {
		return strings.Repeat("helm repo add x https://x.test/c; ", n/64) + "helm install " + strings.Repeat("x/c ", n/8)
	},
	"secrets staged then pushes": func(n int) string {
		return strings.Repeat("git add -f .env; ", n/34) + strings.Repeat("git push; ", n/40)
	},
	"gh text": func(n int) string { return "gh pr comment 1 " + strings.Repeat("--label $x ", n/11) },
	"cargo add --git then builds": func(n int) string {
		return strings.Repeat("cargo add --git u; ", n/60) + strings.Repeat("cargo build; ", n/40)
	},
	"renames of a download": func(n int) string {
		return "curl -o a https://x.test/a; " + strings.Repeat("mv a b; cp -t d b; ", n/38) + "bash a"
	},
	"copies of a download": func(n int) string { return "curl -o a https://x.test/a; cp " + strings.Repeat("a ", n/2) + "d/" },
	"fork options":         func(n int) string { return "gh repo fork x/y --clone " + strings.Repeat("--org o ", n/8) },
	"downloads then kubectl dirs": func(n int) string {
		var b strings.Builder
		for i := range n / 48 {
			b.WriteString("curl -o d/a" + strconv.Itoa(i) + " u; ")
		}
		return b.String() + "kubectl apply " + strings.Repeat("-f e/ ", n/12)
	},
}

// TestAttackS29ReviewCostIsLinear: classifying each s29ReviewLines line
// near the 64 KiB limit allocates less than 8 times what its quarter
// does (about 4 when the work is linear, 16 when it is quadratic),
// counted, not timed. Passed on the code as it is: the new code loops
// over a command's words once, and looks sets up by name.
func TestAttackS29ReviewCostIsLinear(t *testing.T) {
	c := Default()
	for name, line := range s29ReviewLines {
		small, large := line(15<<10), line(60<<10)
		require.LessOrEqual(t, len(large), c.rules.Limits.MaxLength, name)
		v := c.Classify(large)
		require.False(t, v.Incomplete, "%s: the 60 KiB line is over a limit: %v", name, v.Reasons)
		_, sBytes := allocated(func() { c.Classify(small) })
		_, lBytes := allocated(func() { c.Classify(large) })
		t.Logf("%-28s bytes %9d -> %9d", name, sBytes, lBytes)
		assert.LessOrEqual(t, lBytes, 8*sBytes, "%s: %d bytes allocated at 60 KiB, over 8 times the %d at 15 KiB", name, lBytes, sBytes)
	}
}

// TestAttackS29ReviewFetchedUnderIsBounded: fetchedUnder (kubectl apply
// -f DIR of a directory that may hold a file a downloader on the line
// wrote) looks at every downloaded file, and allocates nothing doing
// so, which an allocation count does not see: all its calls on a line
// together look at no more than Limits.MaxLength files, counted, and past
// that it answers yes.
func TestAttackS29ReviewFetchedUnderIsBounded(t *testing.T) {
	c := Default()
	s := &state{c: c, fetched: map[string]bool{}}
	for i := range 4096 {
		s.fetched["d/a"+strconv.Itoa(i)] = true
	}
	calls, yes := 0, 0
	for range 4096 {
		calls++
		if s.fetchedUnder(word{s: "e", lit: true}) {
			yes++
		}
	}
	assert.LessOrEqual(t, s.fetchedScans, c.rules.Limits.MaxLength+calls, "files looked at")
	assert.Positive(t, yes, "past the bound the answer is yes")
	assert.True(t, (&state{c: c, fetched: map[string]bool{"d/a": true}}).fetchedUnder(word{s: "d", lit: true}))
	assert.False(t, (&state{c: c, fetched: map[string]bool{"d/a": true}}).fetchedUnder(word{s: "e", lit: true}))
	assert.False(t, (&state{c: c, fetched: map[string]bool{"dd/a": true}}).fetchedUnder(word{s: "d", lit: true}))
}
