package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// s33rBindRO binds src at dst, read-only (a RemoveAll of the workspace
// that ran before the unmount could not delete src through it), until the
// test ends.
func s33rBindRO(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, unix.Mount(src, dst, "", unix.MS_BIND, ""))
	t.Cleanup(func() { unix.Unmount(dst, unix.MNT_DETACH) })
	require.NoError(t, unix.Mount("", dst, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""))
}

// 7939f1b masks a Spec.Mask path also where another mount shows it
// (otherPaths), and otherPaths looks up the mounts below each path too: a
// masked directory of the workspace that held a bind of a host directory
// (a chroot or image build's root, with /usr bound into it: build/root/usr)
// had that directory masked at its own place, /usr, and no command could
// start ("execvp sh: No such file or directory"). What a mount below a
// masked path shows is the host's, not the workspace's: only the masked
// path's own other places are masked.
func TestAttackS33ReviewMountBelowAMaskedDirectoryMasksTheHost(t *testing.T) {
	requireRoot(t)
	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			ws := workspaceDir(t)
			usr := filepath.Join(ws, "build", "root", "usr")
			require.NoError(t, os.MkdirAll(usr, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(ws, "build", "secret"), []byte("MASKSECRET\n"), 0o644))
			s33rBindRO(t, "/usr", usr)
			sb := engine(t, eng, WithWorkspace(ws))
			o := s33Run(t, sb, Spec{Argv: []string{"sh", "-c", "cat build/secret; ls build; echo end"}, Mask: []string{"build"}})
			out := string(o.Stdout)
			assert.Contains(t, out, "end", "the run failed: %s", o.Stderr)
			assert.NotContains(t, out, "MASKSECRET")
			assert.NotContains(t, out, "root", "the masked directory was listed")
		})
	}
}
