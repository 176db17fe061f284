package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// coreAttack raises the soft core-size limit to the hard one (the host's,
// usually unlimited) and crashes a shell in the directory $1, so that the
// kernel, not the command, writes a core file there: with core_pattern a
// plain name ("core", the kernel's default), into the crashing process's
// working directory; with a pipe (systemd-coredump, apport), to a helper
// that runs as root on the host and keeps the dump outside the sandbox.
const coreAttack = `cd "$1" || exit 9
ulimit -S -c unlimited 2>/dev/null || ulimit -c unlimited
ulimit -c
sh -c 'kill -SEGV $$'
ls -la
exit 0`

// TestAttackS17ECoreDumpPastTheLimits: a command may not make the kernel
// write a core dump for it. The dump is written by the kernel on the
// command's behalf: in a directory the command's user may write outside
// the sandbox's writable paths (landlock), past Limits.FileSize, and
// through a core_pattern pipe to a root helper on the host.
func TestAttackS17ECoreDumpPastTheLimits(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	require.NoError(t, err)
	t.Logf("core_pattern %q", b)
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			var opts []Option
			if name == EngineProcess && os.Geteuid() == 0 {
				opts = append(opts, WithUser(65534, 65534))
			}
			ws := workspaceDir(t)
			sb := engine(t, name, append(opts, WithWorkspace(ws))...)
			// A directory the command's user may write on the host,
			// outside the workspace (a world-writable one, as /tmp is).
			open := filepath.Join(hostDir(t), "open")
			require.NoError(t, os.Mkdir(open, 0o777))
			require.NoError(t, os.Chmod(open, 0o777))
			for _, dir := range []string{ws, open} {
				out, err := sb.Run(context.Background(), Spec{
					Argv:   []string{"sh", "-c", coreAttack, "sh", dir},
					Limits: Limits{Timeout: 60 * time.Second, FileSize: 4096},
				})
				require.NotNil(t, out, "%v", err)
				t.Logf("%s in %s: %s %s", name, dir, out.Stdout, out.Stderr)
				// What a core_pattern pipe's helper is told (%c): 0, soft
				// and hard, whatever the command tried.
				limit, _, _ := strings.Cut(string(out.Stdout), "\n")
				assert.Equal(t, "0", limit, "%s: the command's core size limit", name)
				entries, err := os.ReadDir(dir)
				require.NoError(t, err)
				for _, e := range entries {
					assert.NotContains(t, e.Name(), "core", "%s: the kernel wrote a core dump in %s", name, dir)
				}
			}
		})
	}
}
