package sandbox

import (
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s32ReviewFifoScript tries every way a command might open the host FIFO
// argv[1] for writing without naming it plainly: read-write, by reopening
// a read-only or O_PATH descriptor of it through /proc/self/fd or /dev/fd,
// through /proc/PID/root and /proc/self/cwd, relative to its directory
// (cwd, openat), and through a hard link, a symlink or a rename into the
// temporary directory argv[3] or the workspace argv[2]. It prints "WROTE <way>" for each way that
// opened it for writing, and writes a line there.
const s32ReviewFifoScript = `
import os, sys
fifo, ws, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
d, base = os.path.split(fifo)
W = os.O_WRONLY | os.O_NONBLOCK

def rdonly():
    return os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)

def opath():
    return os.open(fifo, os.O_PATH)

def cwd(name):
    os.chdir(d)
    return os.open(name, W)

def at():
    dfd = os.open(d, os.O_PATH | os.O_DIRECTORY)
    return os.open(base, W, dir_fd=dfd)

def link(to):
    os.link(fifo, to)
    return os.open(to, W)

def symlink(to):
    os.symlink(fifo, to)
    return os.open(to, W)

def rename(to):
    os.rename(fifo, to)
    return os.open(to, W)

ways = [
    ("rdwr", lambda: os.open(fifo, os.O_RDWR)),
    ("append", lambda: os.open(fifo, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)),
    ("trunc", lambda: os.open(fifo, os.O_WRONLY | os.O_TRUNC | os.O_NONBLOCK)),
    ("reopen-proc-fd", lambda: os.open("/proc/self/fd/%d" % rdonly(), W)),
    ("reopen-dev-fd", lambda: os.open("/dev/fd/%d" % rdonly(), W)),
    ("reopen-proc-fd-rdwr", lambda: os.open("/proc/self/fd/%d" % rdonly(), os.O_RDWR)),
    ("reopen-opath", lambda: os.open("/proc/self/fd/%d" % opath(), W)),
    ("proc-1-root", lambda: os.open("/proc/1/root" + fifo, W)),
    ("proc-self-root", lambda: os.open("/proc/self/root" + fifo, W)),
    ("cwd", lambda: cwd(base)),
    ("proc-self-cwd", lambda: cwd("/proc/self/cwd/" + base)),
    ("openat", at),
    ("symlink-tmp", lambda: symlink(os.path.join(tmp, "s32-sym"))),
    ("symlink-ws", lambda: symlink(os.path.join(ws, "s32-sym"))),
    ("link-tmp", lambda: link(os.path.join(tmp, "s32-link"))),
    ("link-ws", lambda: link(os.path.join(ws, "s32-link"))),
    ("link-same-dir", lambda: link(os.path.join(d, "s32-link"))),
    ("rename-tmp", lambda: rename(os.path.join(tmp, "s32-moved"))),
    ("rename-ws", lambda: rename(os.path.join(ws, "s32-moved"))),
]
for name, way in ways:
    try:
        fd = way()
    except OSError as e:
        print(name, "refused:", e.strerror)
        continue
    try:
        os.write(fd, ("TOKEN-" + name + "\n").encode())
        print("WROTE", name)
    except OSError as e:
        print("OPENED", name, "but write:", e.strerror)
print("end")
`

var s32ReviewWrote = regexp.MustCompile(`(?m)^(WROTE|OPENED) (\S+)`)

// s32ReviewHostFifo makes a mode-666 FIFO in a fresh host directory under /
// and opens it for reading without blocking (so that a writer's open does
// not wait, and what it writes stays in the pipe).
func s32ReviewHostFifo(t *testing.T) (path string, fd int) {
	t.Helper()
	path = filepath.Join(hostDir(t), "control")
	require.NoError(t, syscall.Mkfifo(path, 0o666))
	require.NoError(t, os.Chmod(path, 0o666))
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Close(fd) })
	return path, fd
}

// The fix of TestAttackS32BwrapHostFifo (a Landlock domain that refuses
// writes outside the workspace and the run's own directories) must hold for
// every way of reaching the FIFO, not only for its plain path: a
// read-write open, a read-only or O_PATH descriptor reopened for writing
// through /proc/self/fd (a magic link, which Landlock judges by the file it
// leads to), /proc/1/root, the working directory, openat, and a link,
// symlink or rename into a directory the command may write. As the default
// user and as WithUser(0, 0), whose uid owns the FIFO's directory.
func TestAttackS32ReviewFifoOtherWays(t *testing.T) {
	requireRoot(t)
	needPython(t)

	// The control: the process engine reaches it in the main ways.
	// (Its "/tmp" is a directory of its own: the host's /tmp is the
	// process engine's.)
	fifo, fd := s32ReviewHostFifo(t)
	ws := workspaceDir(t)
	tmp := workspaceDir(t)
	o := mustRun(t, engine(t, EngineProcess, WithWorkspace(ws)), Spec{Argv: []string{"python3", "-c", s32ReviewFifoScript, fifo, ws, tmp}})
	t.Logf("control stdout: %s\nstderr: %s", o.Stdout, o.Stderr)
	for _, way := range []string{"rdwr", "reopen-proc-fd", "reopen-opath", "proc-self-root", "openat", "symlink-tmp"} {
		require.Contains(t, string(o.Stdout), "WROTE "+way+"\n", "the control did not write through %s", way)
	}
	require.Contains(t, s32FifoRead(t, fd), "TOKEN-rdwr\n", "the control's lines did not arrive")

	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"default user", nil},
		{"root", []Option{WithUser(0, 0)}},
		{"network on", []Option{WithNetwork(true)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fifo, fd := s32ReviewHostFifo(t)
			ws := workspaceDir(t)
			sb := engine(t, EngineBwrap, append([]Option{WithWorkspace(ws)}, c.opts...)...)
			o := mustRun(t, sb, Spec{Argv: []string{"python3", "-c", s32ReviewFifoScript, fifo, ws, "/tmp"}})
			t.Logf("stdout: %s\nstderr: %s", o.Stdout, o.Stderr)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.Empty(t, s32ReviewWrote.FindAllString(string(o.Stdout), -1), "a bwrap command opened the host FIFO %s for writing", fifo)
			assert.Empty(t, s32FifoRead(t, fd), "a bwrap command wrote to the host FIFO %s", fifo)
			_, err := os.Lstat(fifo)
			assert.NoError(t, err, "a bwrap command moved the host FIFO")
		})
	}
}
