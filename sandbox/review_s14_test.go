package sandbox

import (
	"path"
	"testing"
)

// TestReviewS14MatchWithinAsTheWalk: names the fuzz rarely reaches
// (uncleaned ones, whose parents path.Dir cleans), each compared with the
// plain walk MatchWithin stands for.
func TestReviewS14MatchWithinAsTheWalk(t *testing.T) {
	for _, c := range [][2]string{
		{"/etc/**", "//etc/shadow"},
		{"/etc/**", "/x/../etc/shadow"},
		{"/etc/**", "/./etc/shadow"},
		{"etc/**", "./etc/shadow"},
		{"secrets", "a/../secrets/key"},
		{"/etc/**", "/etc//shadow"},
		{"/etc", "/etc/"},
		{"/etc/**", "/etc/"},
	} {
		walk := false
		for n := c[1]; n != "." && n != "/" && n != ""; n = path.Dir(n) {
			if Match(c[0], n) {
				walk = true
				break
			}
		}
		if got := MatchWithin(c[0], c[1]); got != walk {
			t.Errorf("MatchWithin(%q, %q) = %v, the walk says %v", c[0], c[1], got, walk)
		}
	}
}
