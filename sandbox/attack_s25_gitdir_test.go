package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A repository made with its git directory apart (git init
// --separate-git-dir, a layout some dotfile managers use) has a .git file
// that names it ("gitdir: .repo"). bwrap and gvisor bound the .git file
// read-only, but not the directory it names when that lies in the
// workspace: the command planted a hook there, which the owner's next git
// commit on the host runs outside any sandbox.
func TestAttackS25SeparateGitDirInTheWorkspace(t *testing.T) {
	requireRoot(t)
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		for _, gitdir := range []string{".repo", "meta/repo.git"} {
			t.Run(name+"/"+gitdir, func(t *testing.T) {
				ws := workspaceDir(t)
				require.NoError(t, os.MkdirAll(filepath.Join(ws, gitdir, "hooks"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644))
				require.NoError(t, chownTree(ws, nobody, nobody)) // the command's user owns it all
				sb := engine(t, name, WithWorkspace(ws))
				hook := filepath.Join(gitdir, "hooks", "pre-commit")
				out, err := sb.Run(context.Background(), Spec{
					Argv: []string{"sh", "-c", `printf '#!/bin/sh\necho PWNED\n' > "$1" && echo PLANTED; echo x > made && echo WORKSPACE-WRITABLE; echo end`, "sh", hook},
				})
				require.NoError(t, err, "%+v", out)
				t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
				assert.Contains(t, string(out.Stdout), "WORKSPACE-WRITABLE")
				assert.NotContains(t, string(out.Stdout), "PLANTED", "the command wrote in the repository's git directory")
				assert.NoFileExists(t, filepath.Join(ws, hook), "a hook the host's git runs was planted")
			})
		}
	}
}
