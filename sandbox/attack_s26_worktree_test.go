package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A linked worktree inside the workspace (git worktree add .worktrees/wt,
// as coding agents make them; or the "bare clone" layout, .git naming
// .bare and each branch a worktree beside it) has a .git file that names
// its directory in the repository's git directory. bwrap and gvisor left
// that file writable: a command pointed it at a git directory of its own
// with a core.fsmonitor, which the owner's next git status in that
// worktree, on the host, runs outside any sandbox. The worktrees the
// repository's git directory records (worktrees/NAME/gitdir) now have
// their .git bound read-only too.
func TestAttackS26CommandRewritesAWorktreeGitFile(t *testing.T) {
	requireRoot(t)
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		for _, layout := range []struct{ name, gitDir, worktree string }{
			{"worktree in the repository", ".git", ".worktrees/wt"},
			{"bare clone", ".bare", "main"},
		} {
			t.Run(name+"/"+layout.name, func(t *testing.T) {
				ws := workspaceDir(t)
				admin := filepath.Join(ws, layout.gitDir, "worktrees", "wt")
				require.NoError(t, os.MkdirAll(admin, 0o755))
				wtGit := filepath.Join(ws, filepath.FromSlash(layout.worktree), ".git")
				require.NoError(t, os.MkdirAll(filepath.Dir(wtGit), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(admin, "gitdir"), []byte(wtGit+"\n"), 0o644))
				require.NoError(t, os.WriteFile(wtGit, []byte("gitdir: "+admin+"\n"), 0o644))
				if layout.gitDir != ".git" {
					require.NoError(t, os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: ./"+layout.gitDir+"\n"), 0o644))
				}
				require.NoError(t, chownTree(ws, nobody, nobody)) // the command's user owns it all
				sb := engine(t, name, WithWorkspace(ws))
				o := sh(t, sb, `printf 'gitdir: /tmp/evil\n' > "$1/.git" && echo REWROTE; echo x > "$1/made" && echo WORKTREE-WRITABLE; echo end`, layout.worktree)
				require.Contains(t, string(o.Stdout), "end", "the attack did not run")
				assert.Contains(t, string(o.Stdout), "WORKTREE-WRITABLE", "the worktree's files stay writable")
				assert.NotContains(t, string(o.Stdout), "REWROTE", "the command rewrote a worktree's .git file")
				b, err := os.ReadFile(wtGit)
				require.NoError(t, err)
				assert.Contains(t, string(b), admin, "the worktree's .git file was rewritten")
			})
		}
	}
}
