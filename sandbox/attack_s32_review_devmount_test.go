package sandbox

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// s32ReviewDevScript opens each device node given for writing, read-write
// and append, and prints "WROTE <path> <how>" for each open that succeeded.
const s32ReviewDevScript = `for d in "$@"; do
	if echo x > "$d"; then echo "WROTE $d w"; fi
	if true 3<>"$d"; then echo "WROTE $d rw"; fi
	if echo x >> "$d"; then echo "WROTE $d a"; fi
done
echo end`

// Another file type a read-only mount does not protect: a device node. A
// mode-666 character device on the host (a copy of /dev/null, as a chroot
// or a container image tree under / holds them), in a host directory under
// / and on a tmpfs the host mounted there without nodev: a bwrap command
// must open neither for writing (bwrap binds the root nodev, and the
// Landlock domain of e1e6970 refuses writes there).
func TestAttackS32ReviewHostDeviceNode(t *testing.T) {
	requireRoot(t)
	dir := hostDir(t)
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, unix.Mount("tmpfs", sub, "tmpfs", 0, "mode=0755,size=64k"))
	t.Cleanup(func() { unix.Unmount(sub, unix.MNT_DETACH) })
	var nodes []string
	for _, d := range []string{dir, sub} {
		n := filepath.Join(d, "null")
		require.NoError(t, unix.Mknod(n, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))))
		require.NoError(t, os.Chmod(n, 0o666))
		nodes = append(nodes, n)
	}

	// The control: the process engine opens them.
	o := sh(t, engine(t, EngineProcess), s32ReviewDevScript, nodes...)
	for _, n := range nodes {
		require.Contains(t, string(o.Stdout), "WROTE "+n+" rw\n", "the control did not open %s", n)
	}

	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"default user", nil},
		{"root", []Option{WithUser(0, 0)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := sh(t, engine(t, EngineBwrap, append([]Option{WithWorkspace(workspaceDir(t))}, c.opts...)...), s32ReviewDevScript, nodes...)
			require.Contains(t, string(o.Stdout), "end\n", "the attack did not run")
			assert.NotContains(t, string(o.Stdout), "WROTE", "a bwrap command opened a host device node for writing")
		})
	}
}

// s32ReviewMountScript tells the host it is running (FIFO $2/ready), waits
// for the host's mount under $1 (FIFO $2/go), and then tries to write
// there.
const s32ReviewMountScript = `echo ready > "$2/ready"
read x < "$2/go"
grep -F "$1" /proc/self/mountinfo
grep -F " $1/m " /proc/self/mountinfo || echo "no mount at $1/m"
if echo pwned > "$1/m/new"; then echo "WROTE new"; fi
if echo pwned >> "$1/m/old"; then echo "WROTE old"; fi
if mkdir "$1/m/dir"; then echo "WROTE dir"; fi
echo end`

// A mount the host makes after a run started, under a directory the run
// sees read-only: where the host's mounts propagate (a shared mount, as
// systemd makes /; here a bind of the test's directory made shared), bwrap's
// slave copy of the root receives it with the host's flags, read-write, so
// the read-only root does not cover it (an automounted disk, a user's FUSE
// mount made during a long run). The Landlock domain of e1e6970 refuses
// writes outside the workspace and the run's own directories whatever the
// mount. The command and the host take turns through two FIFOs in the
// workspace.
func TestAttackS32ReviewMountAfterTheStart(t *testing.T) {
	requireRoot(t)
	dir := hostDir(t)
	require.NoError(t, unix.Mount(dir, dir, "", unix.MS_BIND, ""))
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	require.NoError(t, unix.Mount("", dir, "", unix.MS_SHARED, ""))
	m := filepath.Join(dir, "m")
	require.NoError(t, os.Mkdir(m, 0o755))
	t.Cleanup(func() { unix.Unmount(m, unix.MNT_DETACH) })

	// The workspace is the command's user's: an idmapped one is mounted
	// from a private mount namespace, and no host mount reaches that run.
	ws := workspaceDir(t)
	require.NoError(t, os.Chown(ws, runUID(), runUID()))
	ready, goFifo := filepath.Join(ws, "ready"), filepath.Join(ws, "go")
	for _, f := range []string{ready, goFifo} {
		require.NoError(t, syscall.Mkfifo(f, 0o666))
		require.NoError(t, os.Chmod(f, 0o666))
	}
	sb := engine(t, EngineBwrap, WithWorkspace(ws))

	type result struct {
		out *Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := sb.Run(context.Background(), Spec{
			Argv:   []string{"sh", "-c", s32ReviewMountScript, "sh", dir, ws},
			Limits: Limits{Timeout: 30 * time.Second},
		})
		done <- result{out, err}
	}()
	readyLine := make(chan string, 1)
	go func() {
		f, err := os.Open(ready) // until the command opens it to write
		if err != nil {
			readyLine <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		readyLine <- string(b)
	}()
	var r result
	select {
	case line := <-readyLine:
		require.Equal(t, "ready\n", line)
	case r = <-done:
		// Let the reader go (a writer's open ends its wait).
		if fd, err := unix.Open(ready, unix.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			unix.Close(fd)
		}
		require.NotNil(t, r.out, "%v", r.err)
		t.Fatalf("the run ended before the command was ready: stdout %s\nstderr %s", r.out.Stdout, r.out.Stderr)
	}

	// The host mounts a fresh tmpfs under the directory, with a file the
	// command's user may write, and lets the command go on.
	require.NoError(t, unix.Mount("tmpfs", m, "tmpfs", 0, "mode=1777,size=64k"))
	old := filepath.Join(m, "old")
	require.NoError(t, os.WriteFile(old, []byte("host\n"), 0o666))
	require.NoError(t, os.Chmod(old, 0o666))
	g, err := os.OpenFile(goFifo, os.O_RDWR, 0) // does not wait for a reader
	require.NoError(t, err)
	defer g.Close()
	_, err = g.WriteString("go\n")
	require.NoError(t, err)

	r = <-done
	require.NotNil(t, r.out, "%v", r.err)
	t.Logf("stdout: %s\nstderr: %s", r.out.Stdout, r.out.Stderr)
	require.Contains(t, string(r.out.Stdout), "end\n", "the attack did not run")
	assert.NotContains(t, string(r.out.Stdout), "WROTE", "a bwrap command wrote into a host mount made after the run started")
	_, err = os.Lstat(filepath.Join(m, "new"))
	assert.True(t, os.IsNotExist(err), "a bwrap command created a file in a host mount made after the run started")
	b, err := os.ReadFile(old)
	require.NoError(t, err)
	assert.Equal(t, "host\n", string(b), "a bwrap command appended to a file in a host mount made after the run started")
}
