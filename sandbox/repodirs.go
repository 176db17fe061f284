package sandbox

import (
	"os"
	"path/filepath"
)

// repoDirs returns the workspace's own version-control directories, the
// [DefaultProtectedNames] at its top (.git, .hg, .svn) that exist as a
// directory or a file (a worktree's or submodule's .git file naming its
// git directory), as paths in ws. bwrap and gvisor bind each read-only over
// itself: a command wrote .git/hooks/pre-commit, a core.fsmonitor or
// core.hooksPath into .git/config (Mercurial's .hg/hgrc has [hooks] too), or
// moved .git aside and made a new one, and the repository's owner's next git
// status or git commit on the host ran it outside any sandbox
// (TestAttackS21CommandPlantsGitHooks; published against Claude Code's and
// Codex's sandboxes, which keep these read-only). A mount point cannot be
// renamed or removed, so the directory stays where git looks for it.
//
// A symbolic link is left out: bound where it leads, it could still be
// replaced by a link to a directory the command writes. So is a name that is
// missing: a command can make a .git (git init), as the file tools can.
//
// None with [WithWritableRepository].
func (c *config) repoDirs(ws string) []string {
	if c.repoWritable {
		return nil
	}
	var out []string
	for _, name := range DefaultProtectedNames {
		p := filepath.Join(ws, name)
		if fi, err := os.Lstat(p); err == nil && (fi.IsDir() || fi.Mode().IsRegular()) {
			out = append(out, p)
		}
	}
	return out
}
