package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// When the workspace cannot be idmapped for runsc (a filesystem without
// idmapped mounts: ramfs here, NFS or FUSE on a host), the run must fail
// with an error that says so, as it did before runsc's binds were pinned.
// Since then, plan's cleanup called the release that mapWorkspace had
// just set to nil on its way out: a nil function call, which panicked the
// caller's program.
func TestAttackS25GVisorUnmappableWorkspaceFailsCleanly(t *testing.T) {
	requireRoot(t)
	sb := engine(t, EngineGVisor, WithWorkspace(ramfsWorkspace(t)))
	var out *Outcome
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		out, err = sb.Run(context.Background(), Spec{Argv: []string{"true"}})
		return err
	}()
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "panic", "a workspace runsc cannot idmap crashed the program")
	assert.Nil(t, out)
	t.Logf("err %v", err)
}

// ramfsWorkspace returns a root-owned workspace on a ramfs, which has no
// idmapped mounts, mounted on the host for the test.
func ramfsWorkspace(t *testing.T) string {
	dir := workspaceDir(t)
	require.NoError(t, unix.Mount("ramfs", dir, "ramfs", 0, "mode=0777"))
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	require.NoError(t, os.Chmod(dir, 0o777))
	return filepath.Clean(dir)
}

// runsc mounts a spec's mounts shallowest destination first, not in the
// order the spec lists them (seen in the run's /proc/self/mountinfo): the
// repository's directories bound read-only again after the directories
// above the masked paths (see plan) cover those at .git's own depth only.
// A path the workspace's rules mask two or more levels inside .git (a
// deny rule "**/config" masks a submodule's .git/modules/lib/config,
// "**/token" a token kept in .git/hooks) made the directories above it
// writable mounts over the read-only .git, and the command planted a hook
// that the host's next git commit runs outside any sandbox
// (TestAttackS21CommandPlantsGitHooks). bwrap mounts in the order given;
// neither engine binds those directories now (maskParents).
func TestAttackS25GVisorMaskInsideGitLeavesHooksWritable(t *testing.T) {
	requireRoot(t)
	cases := []struct{ name, deny, masked, hook string }{
		{"a token in .git/hooks", "**/token", ".git/hooks/token", ".git/hooks/pre-commit"},
		{"a submodule's config", "**/config", ".git/modules/lib/config", ".git/modules/lib/hooks/pre-commit"},
	}
	for _, name := range []string{EngineGVisor, EngineBwrap} {
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				ws := workspaceDir(t)
				require.NoError(t, os.MkdirAll(filepath.Join(ws, filepath.Dir(c.masked)), 0o755))
				require.NoError(t, os.MkdirAll(filepath.Join(ws, filepath.Dir(c.hook)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(ws, c.masked), []byte("SECRET\n"), 0o644))
				require.NoError(t, chownTree(ws, nobody, nobody)) // the command's user owns it all
				w, err := OpenWorkspace(ws, WithDeny(c.deny))
				require.NoError(t, err)
				mask, err := w.Masked()
				require.NoError(t, err)
				require.NoError(t, w.Close())
				require.Contains(t, mask, c.masked)
				sb := engine(t, name, WithWorkspace(ws))
				out, err := sb.Run(context.Background(), Spec{
					Mask: mask,
					Argv: []string{"sh", "-c", `printf '#!/bin/sh\necho PWNED\n' > "$1" && echo PLANTED; cat "$2"; echo end`, "sh", c.hook, c.masked},
				})
				require.NoError(t, err)
				t.Logf("mask %q\nstdout: %s\nstderr: %s", mask, out.Stdout, out.Stderr)
				assert.NotContains(t, string(out.Stdout), "SECRET")
				assert.NotContains(t, string(out.Stdout), "PLANTED", "the command wrote in the read-only repository directory")
				assert.NoFileExists(t, filepath.Join(ws, c.hook), "a hook the host's git runs was planted")
			})
		}
	}
}

// For the same reason (runsc mounts the shallowest destinations first), a
// masked directory with a masked path below it (Spec.Mask "conf" and
// "conf/a/key") had the directory above the deeper one (conf/a) bound
// writable over the empty directory that hides conf: the command read
// conf/a's other files and wrote there. Workspace.Masked lists only the
// topmost masked path, so this takes a Spec.Mask made by hand (nothing
// refuses one); bwrap mounts in the spec's order and keeps conf hidden.
func TestAttackS25GVisorNestedMaskShowsTheMaskedDirectory(t *testing.T) {
	requireRoot(t)
	ws := workspaceDir(t)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "conf", "a"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "conf", "a", "key"), []byte("SECRET KEY\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "conf", "a", "other"), []byte("SECRET OTHER\n"), 0o644))
	require.NoError(t, chownTree(ws, nobody, nobody))
	sb := engine(t, EngineGVisor, WithWorkspace(ws))
	out, err := sb.Run(context.Background(), Spec{
		Mask: []string{"conf", "conf/a/key"},
		Argv: []string{"sh", "-c", `cat conf/a/other conf/a/key; echo x > conf/a/made && echo WROTE; echo end`},
	})
	if err != nil {
		return // refusing the run is fine; showing what the mask hides is not
	}
	t.Logf("stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
	assert.NotContains(t, string(out.Stdout), "SECRET", "the command read a file inside a masked directory")
	assert.NotContains(t, string(out.Stdout), "WROTE", "the command wrote inside a masked directory")
	assert.NoFileExists(t, filepath.Join(ws, "conf", "a", "made"))
}

// chownTree gives everything under dir, dir included, to uid:gid.
func chownTree(dir string, uid, gid int) error {
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}
