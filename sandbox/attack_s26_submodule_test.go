package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A submodule's .git is a file in the work tree ("gitdir:
// ../.git/modules/lib") that bwrap and gvisor left writable: only the
// top's .git was bound read-only. git status at the top, on the host, runs
// git status in each submodule, which reads that file: a command that
// pointed it at a git directory of its own making (here ../evil, in the
// workspace), whose config names a core.fsmonitor, had the owner's next
// git status run that program outside any sandbox (seen with git 2.x on
// this host: the fsmonitor ran). The submodules the repository's own git
// directory records (.git/modules/NAME/config, core.worktree) now have
// their .git bound read-only too.
func TestAttackS26CommandRewritesASubmoduleGitFile(t *testing.T) {
	requireRoot(t)
	modules := map[string]string{ // module name: its path in the work tree
		"lib":    "lib",
		"libs/x": "vendor/x",
	}
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			require.NoError(t, os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755))
			for mod, path := range modules {
				dir := filepath.Join(ws, ".git", "modules", filepath.FromSlash(mod))
				require.NoError(t, os.MkdirAll(dir, 0o755))
				up := strings.Repeat("../", 2+strings.Count(mod, "/")+1)
				require.NoError(t, os.WriteFile(filepath.Join(dir, "config"), []byte("[core]\n\tbare = false\n\tworktree = "+up+path+"\n"), 0o644))
				require.NoError(t, os.MkdirAll(filepath.Join(ws, filepath.FromSlash(path)), 0o755))
				back := strings.Repeat("../", strings.Count(path, "/")+1)
				require.NoError(t, os.WriteFile(filepath.Join(ws, filepath.FromSlash(path), ".git"), []byte("gitdir: "+back+".git/modules/"+mod+"\n"), 0o644))
			}
			require.NoError(t, chownTree(ws, nobody, nobody)) // the command's user owns it all
			sb := engine(t, name, WithWorkspace(ws))
			o := sh(t, sb, `for p in lib vendor/x; do printf 'gitdir: /tmp/evil\n' > "$p/.git" && echo "REWROTE $p"; done
mv lib lib2 && echo MOVED; echo x > lib/made && echo WORKTREE-WRITABLE; echo end`)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.Contains(t, string(o.Stdout), "WORKTREE-WRITABLE", "the submodule's work tree stays writable")
			assert.NotContains(t, string(o.Stdout), "REWROTE", "the command rewrote a submodule's .git file")
			assert.NotContains(t, string(o.Stdout), "MOVED", "the command moved a submodule aside")
			for _, path := range modules {
				b, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(path), ".git"))
				require.NoError(t, err)
				assert.Contains(t, string(b), ".git/modules/", "the .git file of %s was rewritten", path)
			}
		})
	}
}
