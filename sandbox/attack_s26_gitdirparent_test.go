package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A repository whose git directory lies apart in the workspace
// (git init --separate-git-dir=meta/repo.git) has that directory bound
// read-only (repoDirs). A path the workspace's rules mask beside it
// (meta/token, under a deny rule "**/token") makes meta, the directory
// above, a mount point bound over itself (maskParents) from the host's
// view of the workspace, where meta/repo.git is writable. bwrap mounts in
// the order given, and bound meta after meta/repo.git: the writable meta
// covered the read-only git directory, and the command planted a hook that
// the owner's next git commit on the host runs outside any sandbox.
func TestAttackS26MaskParentAboveTheSeparateGitDir(t *testing.T) {
	requireRoot(t)
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			gitdir := filepath.Join("meta", "repo.git")
			require.NoError(t, os.MkdirAll(filepath.Join(ws, gitdir, "hooks"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: meta/repo.git\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(ws, "meta", "token"), []byte("SECRET\n"), 0o644))
			require.NoError(t, chownTree(ws, nobody, nobody)) // the command's user owns it all
			w, err := OpenWorkspace(ws, WithDeny("**/token"))
			require.NoError(t, err)
			mask, err := w.Masked()
			require.NoError(t, err)
			require.NoError(t, w.Close())
			require.Equal(t, []string{"meta/token"}, mask)
			sb := engine(t, name, WithWorkspace(ws))
			hook := filepath.Join(gitdir, "hooks", "pre-commit")
			out, err := sb.Run(context.Background(), Spec{
				Mask: mask,
				Argv: []string{"sh", "-c", `printf '#!/bin/sh\necho PWNED\n' > "$1" && echo PLANTED; cat meta/token; echo x > meta/made && echo META-WRITABLE; echo end`, "sh", hook},
			})
			require.NoError(t, err)
			t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
			require.Contains(t, string(out.Stdout), "end", "the attack did not run")
			assert.Contains(t, string(out.Stdout), "META-WRITABLE", "the directory beside the git directory stays writable")
			assert.NotContains(t, string(out.Stdout), "SECRET")
			assert.NotContains(t, string(out.Stdout), "PLANTED", "the command wrote in the repository's git directory")
			assert.NoFileExists(t, filepath.Join(ws, hook), "a hook the host's git runs was planted")
		})
	}
}
