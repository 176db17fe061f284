package classify

import "testing"

// TestAttackS18MorePlusCommand: where more is less (macOS's /usr/bin/more,
// a system whose more links to less), more +CMD runs CMD as the keys less
// reads first, and ! in them runs a shell, as less '+!touch pwned' f
// (Dangerous) does; more '+!touch pwned' f was Safe. util-linux more's
// +NUM, a line to start at, stays Safe.
func TestAttackS18MorePlusCommand(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`more '+!touch pwned' f`,
		`more '+|touch pwned' f`,
		`more -s '+G!touch pwned' f`,
		`more +1!sh f`,
	})
	attackSafe(t, []string{
		`more f`,
		`more +10 f`,
		`more -s f`,
	})
}
