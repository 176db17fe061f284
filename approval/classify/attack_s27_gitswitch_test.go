package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS27GitSwitchDiscards: git switch -f (--force,
// --discard-changes) throws away local changes, as git checkout -f
// does, and git switch -C / git checkout -B reset an existing branch to
// another commit, as git branch -f does, losing the commits only it
// held: Dangerous, as those are.
func TestAttackS27GitSwitchDiscards(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`git switch -f main`,
		`git switch --force main`,
		`git switch --discard-changes main`,
		`git switch -C main origin/x`,
		`git switch --force-create main HEAD~5`,
		`git checkout -B main HEAD~5`,
	})
	for _, l := range []string{`git switch main`, `git switch -c feature`, `git checkout -b feature`} {
		assert.Less(t, Classify(l).Level, Dangerous, l)
	}
}
