package sandbox

import (
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A directory descriptor the host program holds without close-on-exec (one
// C code opened, or a supervisor passed down) gives a command that
// inherits it the host's view of that directory: through /proc/self/fd/N
// (or openat) it writes where the engine's read-only root forbids, since
// the descriptor's mount is the host's, not the sandbox's. Every engine
// marks the program's descriptors close-on-exec before it starts the
// command (closeOnExecAll). With that call removed this test failed: a
// bwrap command wrote "escaped" into the read-only host directory, and
// landlock and bwrap commands held descriptors 7, 10 and 251 of the test
// program (Landlock still refused the write). The command also lists its
// descriptors: only its stdio and the one the listing opens, so neither
// bwrap's seccomp filter (passed to bwrap as descriptor 3) nor anything of
// an idmapped workspace's setup reaches it.
func TestAttackS23InheritedDirectoryDescriptor(t *testing.T) {
	needPython(t)
	const script = `cd "/proc/self/fd/$1" 2>/dev/null && echo escaped > escaped && echo WROTE
python3 -c 'import os; print("fds", sorted(int(x) for x in os.listdir("/proc/self/fd")))'
echo end`
	for _, name := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		for _, network := range []bool{false, true} {
			t.Run(name+"/network="+strconv.FormatBool(network), func(t *testing.T) {
				// Writable by the command's user as far as file modes go.
				dir := openDir(t)
				fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0) // no O_CLOEXEC, as inherited
				require.NoError(t, err)
				defer unix.Close(fd)
				// As root the workspace (root's) is bound through an
				// idmapped mount, whose setup opens descriptors too.
				sb := engine(t, name, WithWorkspace(workspaceDir(t)), WithNetwork(network))
				out := sh(t, sb, script, strconv.Itoa(fd))
				stdout := string(out.Stdout)
				require.Contains(t, stdout, "end", "the attack did not run")
				assert.NotContains(t, stdout, "WROTE", "the command wrote through the host's directory descriptor")
				ents, err := os.ReadDir(dir)
				require.NoError(t, err)
				assert.Empty(t, ents, "the command changed the host directory")
				assert.Contains(t, stdout, "fds [0, 1, 2, 3]\n", "the command holds a descriptor beyond its stdio (3 is the listing's own)")
			})
		}
	}
}
