package classify

import "testing"

// TestAttackS23GitWorktreeRemove: git worktree remove PATH deletes the
// worktree at PATH, a directory that may lie anywhere (git worktree add
// ../x puts one outside the working directory), and with --force (-f)
// its changes and untracked files too, as git clean -f does; git
// worktree move renames one. All were Warning (git worktree changes
// state), where git worktree add /tmp/x is Dangerous.
func TestAttackS23GitWorktreeRemove(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`git worktree remove --force x`,
		`git worktree remove -f x`,
		`git worktree remove -f -f x`,
		`git worktree remove ../x`,
		`git worktree remove /tmp/x`,
		`git worktree remove ~/src/app`,
		`git worktree move x ../y`,
		`git worktree move ../x y`,
	})
	for _, line := range []string{
		`git worktree remove x`,
		`git worktree move x y`,
		`git worktree prune`,
	} {
		if v := Classify(line); v.Level != Warning {
			t.Errorf("%q: got %s %v, want warning", line, v.Level, v.Reasons)
		}
	}
	attackSafe(t, []string{`git worktree list`})
}
