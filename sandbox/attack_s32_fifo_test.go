package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s32FifoRead returns what has been written to the FIFO open for reading
// (without blocking) as fd since the last call.
func s32FifoRead(t *testing.T, fd int) string {
	t.Helper()
	var got []byte
	buf := make([]byte, 4096)
	for {
		n, err := syscall.Read(fd, buf)
		if n > 0 {
			got = append(got, buf[:n]...)
			continue
		}
		if err != nil && !errors.Is(err, syscall.EAGAIN) {
			require.NoError(t, err)
		}
		return string(got)
	}
}

// A mode-666 FIFO (named pipe) on the host, in a directory under / that
// bwrap's read-only root shows (a daemon's control FIFO under /var/lib or
// /srv): a read-only mount does not stop writing to a FIFO, which reaches
// the process that reads it outside the sandbox, and bwrap's seccomp
// filter cannot tell a FIFO from a file. Landlock refuses opening it for
// writing (not a path it may write), gvisor shows no host FIFO.
func TestAttackS32BwrapHostFifo(t *testing.T) {
	requireRoot(t) // the FIFO's directory is made under /
	fifo := filepath.Join(hostDir(t), "control")
	require.NoError(t, syscall.Mkfifo(fifo, 0o666))
	require.NoError(t, os.Chmod(fifo, 0o666))
	// Open for reading without blocking: a writer's open then succeeds
	// at once, and what it writes waits in the pipe.
	fd, err := syscall.Open(fifo, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Close(fd) })

	const script = `if echo FIFO-TOKEN-S32 > "$1"; then echo WROTE; fi; echo end`

	// The control: the process engine writes to it.
	o := sh(t, engine(t, EngineProcess), script, fifo)
	require.Contains(t, string(o.Stdout), "WROTE\nend\n", "the control did not write")
	require.Equal(t, "FIFO-TOKEN-S32\n", s32FifoRead(t, fd), "the control's line did not arrive")

	for _, c := range []struct {
		name    string
		engine  string
		network bool
	}{
		{"bwrap network off", EngineBwrap, false},
		{"bwrap network on", EngineBwrap, true},
		{"landlock", EngineLandlock, false},
		{"gvisor", EngineGVisor, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := sh(t, engine(t, c.engine, WithWorkspace(workspaceDir(t)), WithNetwork(c.network)), script, fifo)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.NotContains(t, string(o.Stdout), "WROTE", "a %s command opened the host FIFO %s for writing", c.name, fifo)
			assert.Empty(t, s32FifoRead(t, fd), "a %s command wrote to the host FIFO %s", c.name, fifo)
		})
	}
}
