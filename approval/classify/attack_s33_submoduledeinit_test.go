package classify

import (
	"testing"
)

// TestAttackS33SubmoduleDeinitForce: git submodule deinit -f (--force)
// deletes a submodule's working tree, local changes and untracked files
// with it, as git clean -fdx deletes untracked files (Dangerous); so
// does git submodule update -f, which throws away the submodules' local
// changes, as git checkout -f does. They were Warning. Without -f deinit
// refuses a tree with changes, and stays as it was.
func TestAttackS33SubmoduleDeinitForce(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`git submodule deinit -f --all`,
		`git submodule deinit -f path`,
		`git submodule deinit --force lib/x`,
		`git submodule deinit --all -f`,
		`git submodule -q deinit -f path`,
		`git -C repo submodule deinit -f --all`,
		`git submodule update -f`,
		`git submodule update --init --force`,
		`git clean -fdx`,
	})
	attackExactly(t, Warning, []string{
		`git submodule deinit path`,
		`git submodule deinit --all`,
		`git submodule update --init --recursive`,
		`git submodule add https://github.com/o/r lib/r`,
		`git submodule sync`,
	})
}
