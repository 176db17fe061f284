package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Since 1454f42 a bwrap run's first process starts in / and changes to the
// run's directory (-C) only once its Landlock domain is in force. A
// command plants, in the workspace, links that the next run's Spec.Dir
// names: to a host directory holding a mode-666 FIFO (as a link, through a
// chain of two links, and through a directory whose name has a newline and
// looks like the first process's arguments), and a link to the FIFO itself.
// The next run starts there, and writes to the FIFO by a relative name,
// creates a file, and writes to the workspace's link to the FIFO. The
// change of directory after the domain must not make the host directory
// writable: nothing reaches the FIFO's reader, no file appears.
func TestAttackS32Round2RunDirectoryPlantedLink(t *testing.T) {
	requireRoot(t) // the FIFO's directory is made under /
	host := hostDir(t)
	require.NoError(t, os.Chmod(host, 0o777))
	fifo := filepath.Join(host, "control")
	require.NoError(t, syscall.Mkfifo(fifo, 0o666))
	require.NoError(t, os.Chmod(fifo, 0o666))
	fd, err := syscall.Open(fifo, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Close(fd) })

	const weird = "-C\n-- -w x " // a directory name shaped like the init's arguments
	const plant = `set -e
ln -s "$1" d
ln -s b a
ln -s "$1" b
mkdir -- "$2"
ln -s -- "$1" "$2/d"
ln -s "$1/control" fifo
echo planted`
	const attack = `pwd -P
if echo TOKEN-S32R2-REL > control; then echo WROTE-REL; fi
if echo x > s32r2-new; then echo WROTE-FILE; fi
if echo TOKEN-S32R2-LINK > "$1/fifo"; then echo WROTE-LINK; fi
echo end`
	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"default user", nil},
		{"root", []Option{WithUser(0, 0)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := workspaceDir(t)
			sb := engine(t, EngineBwrap, append([]Option{WithWorkspace(ws)}, c.opts...)...)
			mustRun(t, sb, Spec{Argv: []string{"sh", "-c", plant, "sh", host, weird}})
			for _, dir := range []string{"d", "a", weird + "/d"} {
				out, err := sb.Run(t.Context(), Spec{Dir: dir, Argv: []string{"sh", "-c", attack, "sh", ws},
					Limits: Limits{Timeout: 30 * time.Second}})
				require.NoError(t, err, "Dir %q: the run did not start: %+v", dir, out)
				t.Logf("Dir %q: stdout %q stderr %q", dir, out.Stdout, out.Stderr)
				require.Contains(t, string(out.Stdout), "end", "the attack did not run")
				assert.Contains(t, string(out.Stdout), host+"\n", "Dir %q: the command did not start in the host directory the link leads to", dir)
				assert.NotContains(t, string(out.Stdout), "WROTE", "Dir %q: the command wrote in the host directory", dir)
				assert.Empty(t, s32FifoRead(t, fd), "Dir %q: a bwrap command wrote to the host FIFO", dir)
			}
			assert.NoFileExists(t, filepath.Join(host, "s32r2-new"))
		})
	}
}
