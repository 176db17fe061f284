package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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

// The file tools (a Workspace) refused writes under any .git, but not in
// the git directory a .git file names: write_file put a hook in
// .repo/hooks, and renamed one there, for the owner's next git commit.
func TestAttackS25WorkspaceProtectsTheSeparateGitDir(t *testing.T) {
	ws := workspaceDir(t)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".repo", "hooks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: .repo\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "hook"), []byte("#!/bin/sh\n"), 0o755))
	w, err := OpenWorkspace(ws)
	require.NoError(t, err)
	defer w.Close()
	assert.ErrorIs(t, w.WriteFile(".repo/hooks/pre-commit", []byte("#!/bin/sh\necho PWNED\n"), 0o755), ErrProtected)
	assert.ErrorIs(t, w.WriteFile(".REPO/hooks/post-checkout", []byte("#!/bin/sh\n"), 0o755), ErrProtected, "folded as the other rules are")
	assert.ErrorIs(t, w.Rename("hook", ".repo/hooks/pre-push"), ErrProtected)
	assert.ErrorIs(t, w.Remove(".repo/hooks"), ErrProtected)
	assert.NoFileExists(t, filepath.Join(ws, ".repo", "hooks", "pre-commit"))
	// Reading it, and writing beside it, still work.
	_, err = w.ReadDir(".repo")
	require.NoError(t, err)
	require.NoError(t, w.WriteFile(".repository-notes", []byte("x"), 0o644))
}

// A command can leave a FIFO named .git. Reading the git directory a .git
// file names must not wait on it: OpenWorkspace (the file tools) and a
// run's plan would block until someone wrote to the FIFO.
func TestAttackS25GitFIFODoesNotBlock(t *testing.T) {
	ws := workspaceDir(t)
	require.NoError(t, syscall.Mkfifo(filepath.Join(ws, ".git"), 0o644))
	done := make(chan error, 1)
	go func() {
		w, err := OpenWorkspace(ws)
		if err == nil {
			w.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		// Unblock the reader, so that the goroutine ends.
		if f, err := os.OpenFile(filepath.Join(ws, ".git"), os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("OpenWorkspace waited on a FIFO named .git")
	}
}
