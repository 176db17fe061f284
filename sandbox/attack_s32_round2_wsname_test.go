package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A bwrap run's first process gets the workspace as "-w DIR" and the
// run's directory as "-C DIR" among its arguments, and bwrap gets them in
// its own (--bind, --chdir). A workspace and a run directory whose names
// hold newlines, spaces and words shaped like those arguments ("-w /",
// "-C /", "--") must be granted as themselves: the command writes in them,
// and still not to a mode-666 host FIFO.
func TestAttackS32Round2WorkspaceNameShapedLikeArguments(t *testing.T) {
	requireRoot(t)
	host := hostDir(t)
	fifo := filepath.Join(host, "control")
	require.NoError(t, syscall.Mkfifo(fifo, 0o666))
	require.NoError(t, os.Chmod(fifo, 0o666))
	fd, err := syscall.Open(fifo, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Close(fd) })

	parent := workspaceDir(t)
	// parent/"ws\n-w "/"\n-C "/"-- x": the path reads "...ws\n-w /\n-C /-- x".
	ws := parent
	for _, name := range []string{"ws\n-w ", "\n-C ", "-- x"} {
		ws = filepath.Join(ws, name)
		require.NoError(t, os.Mkdir(ws, 0o777))
		require.NoError(t, os.Chmod(ws, 0o777))
	}
	sub := "-C\n-w --"
	require.NoError(t, os.Mkdir(filepath.Join(ws, sub), 0o777))
	require.NoError(t, os.Chmod(filepath.Join(ws, sub), 0o777))

	const script = `pwd -P
echo in > inside && echo WROTE-INSIDE
if echo TOKEN-S32R2 > "$1"; then echo WROTE-FIFO; fi
if echo x > "$2/s32r2-new"; then echo WROTE-HOST; fi
echo end`
	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"default user", nil},
		{"root", []Option{WithUser(0, 0)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sb := engine(t, EngineBwrap, append([]Option{WithWorkspace(ws)}, c.opts...)...)
			for _, dir := range []string{"", sub} {
				out := mustRun(t, sb, Spec{Dir: dir, Argv: []string{"sh", "-c", script, "sh", fifo, host}})
				t.Logf("Dir %q: stdout %q stderr %q", dir, out.Stdout, out.Stderr)
				require.Contains(t, string(out.Stdout), "end", "the attack did not run")
				assert.Contains(t, string(out.Stdout), filepath.Join(ws, dir)+"\n", "Dir %q: not started in the run's directory", dir)
				assert.Contains(t, string(out.Stdout), "WROTE-INSIDE", "Dir %q: the workspace is not writable", dir)
				assert.FileExists(t, filepath.Join(ws, dir, "inside"))
				assert.NotContains(t, string(out.Stdout), "WROTE-FIFO")
				assert.NotContains(t, string(out.Stdout), "WROTE-HOST")
				assert.Empty(t, s32FifoRead(t, fd), "Dir %q: a bwrap command wrote to the host FIFO", dir)
			}
			assert.NoFileExists(t, filepath.Join(host, "s32r2-new"))
		})
	}
}
