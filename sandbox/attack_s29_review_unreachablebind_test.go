package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A bind mount of the home below a directory the run's user cannot enter
// (a backup tool's 0700 /var/backups/home, a root-only chroot) shows the
// run nothing, yet homeMasks asked bwrap and gvisor to mount over the
// stores there as well: a command that cannot reach a path must not be
// refused for it, nor must the stores be readable by the paths it can.
func TestAttackS29ReviewHomeBoundBelowAnUnreachableDirectory(t *testing.T) {
	requireRoot(t) // it mounts on the host; commands run as 65534
	home := hostDir(t)
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("HOMESECRET\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("ORDINARY\n"), 0o644))
	private := hostDir(t)
	require.NoError(t, os.Chmod(private, 0o700))
	bind := filepath.Join(private, "h")
	require.NoError(t, os.Mkdir(bind, 0o755))
	require.NoError(t, unix.Mount(home, bind, "", unix.MS_BIND, ""))
	t.Cleanup(func() { unix.Unmount(bind, unix.MNT_DETACH) })
	t.Setenv("HOME", home)

	for _, eng := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			o := sh(t, engine(t, eng, WithWorkspace(workspaceDir(t))), `cat "$HOME/.ssh/id_ed25519" "$1/.ssh/id_ed25519" "$HOME/.gitconfig"; echo end`, bind)
			out := string(o.Stdout)
			require.Contains(t, out, "end", "the command did not run: %s", o.Stderr)
			assert.Zero(t, strings.Count(out, "HOMESECRET"), "a store was read")
			assert.Contains(t, out, "ORDINARY", "an ordinary file of the home was not read")
		})
	}
}
