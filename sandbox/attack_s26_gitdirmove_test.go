package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A git directory apart in the workspace (git init
// --separate-git-dir=meta/repo.git) is bound read-only when the .git file
// names it through no symbolic link (gitDirIn). The directory above it
// could be renamed: a command ran mv meta m2 && ln -s m2 meta, so the
// path in .git still led to the git directory (git follows the link) but
// through a link, and the next run left it writable: the command planted
// m2/repo.git/hooks/pre-commit for the owner's next git commit.
func TestAttackS26MoveTheDirectoryAboveTheSeparateGitDir(t *testing.T) {
	requireRoot(t)
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			require.NoError(t, os.MkdirAll(filepath.Join(ws, "meta", "repo.git", "hooks"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: meta/repo.git\n"), 0o644))
			require.NoError(t, chownTree(ws, nobody, nobody)) // the command's user owns it all
			sb := engine(t, name, WithWorkspace(ws))
			o := sh(t, sb, `mv meta m2 && ln -s m2 meta && echo MOVED; echo end`)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			o = sh(t, sb, `printf '#!/bin/sh\necho PWNED\n' > m2/repo.git/hooks/pre-commit && echo PLANTED; echo x > made && echo WORKSPACE-WRITABLE; echo end`)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.Contains(t, string(o.Stdout), "WORKSPACE-WRITABLE")
			assert.NotContains(t, string(o.Stdout), "PLANTED", "the command wrote in the repository's git directory")
			for _, p := range []string{"m2/repo.git/hooks/pre-commit", "meta/repo.git/hooks/pre-commit"} {
				assert.NoFileExists(t, filepath.Join(ws, p), "a hook the host's git runs was planted")
			}
		})
	}
}
