package redact

import (
	"strings"
	"testing"
	"time"
)

// A MiB of near misses of the line-break rules (continued commands that
// never give a password, names over blank lines and blocks, flags that
// take none) costs its length: String on 1 MiB takes at most a few times
// 16 times what it takes on 64 KiB.
func TestAttackS19LineBreakNearMissesCostTheirLength(t *testing.T) {
	for _, unit := range []string{
		"curl -sS -H 'X-Trace: 1' \\\n",
		"sshpass -f pwfile \\\n  ",
		"mycmd --password \\\n  --verbose \\\n",
		"password:\n  \n\n",
		"token: |  # note\n \n",
		"docker login \\\n  -u bob `\n",
		"mysql -h db \\\r\n",
	} {
		small, large := strings.Repeat(unit, (64<<10)/len(unit)), strings.Repeat(unit, (1<<20)/len(unit))
		// Timed, by exception: a forward scan rerun from each unit allocates
		// nothing per byte, and String's many rules share no seam to count.
		tSmall, tLarge := fastest(func() { String(small) }), fastest(func() { String(large) })
		// Measured 19-26 times on a quiet machine (the regexp engine
		// changes past a few KiB); quadratic work would be 256 times.
		if tLarge > 100*max(tSmall, time.Millisecond) {
			t.Errorf("%q: 1 MiB took %v, 64 KiB %v", unit, tLarge, tSmall)
		}
	}
}

// fastest returns the least of three runs' times.
func fastest(f func()) time.Duration {
	best := time.Duration(1 << 62)
	for range 3 {
		start := time.Now()
		f()
		best = min(best, time.Since(start))
	}
	return best
}
