package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s32ReviewInnerEnv names the directory /var/tmp leads to when the test
// runs again in a mount namespace of its own (see
// TestAttackS32ReviewSymlinkedVarTmp).
const s32ReviewInnerEnv = "TOOLBELT_S32_REVIEW_VARTMP"

// On some hosts /var/tmp is a symlink to a directory elsewhere (a larger
// disk: /var/tmp -> /data/tmp), and /run or /var/run may be too. bwrap's
// flags mount a fresh tmpfs only where the path is a directory (os.Lstat),
// but the Landlock domain of e1e6970 grants writes beneath /var/tmp, /run
// and /var/run whatever they are, opening them inside the sandbox, which
// follows the link: to the host directory on the read-only root. A host
// FIFO there (the host's own /var/tmp) must stay out of reach. The test
// runs itself again in a mount namespace of its own where /var is a tmpfs
// holding tmp -> a host directory under / and run -> /run (the host's /var
// is not touched).
func TestAttackS32ReviewSymlinkedVarTmp(t *testing.T) {
	requireRoot(t)
	if dir := os.Getenv(s32ReviewInnerEnv); dir != "" {
		s32ReviewSymlinkedVarTmpInner(t, dir)
		return
	}
	if !haveBinary("unshare") {
		t.Skip("needs unshare (util-linux) to make a mount namespace for the test")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := hostDir(t)
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
		`mount -t tmpfs -o mode=0755 tmpfs /var && ln -s "$1" /var/tmp && ln -s /run /var/run && exec "$0" -test.run '^TestAttackS32ReviewSymlinkedVarTmp$' -test.count 1 -test.v`,
		exe, dir)
	cmd.Env = append(os.Environ(), s32ReviewInnerEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	assert.NoError(t, err, "the test failed in its mount namespace (see its output above)")
	assert.Contains(t, string(out), "--- PASS: TestAttackS32ReviewSymlinkedVarTmp", "the test did not run in its mount namespace")
}

func s32ReviewSymlinkedVarTmpInner(t *testing.T, dir string) {
	fi, err := os.Lstat("/var/tmp")
	require.NoError(t, err)
	require.Equal(t, os.ModeSymlink, fi.Mode()&os.ModeType, "/var/tmp is not a symlink here")
	fifo := filepath.Join(dir, "control")
	require.NoError(t, syscall.Mkfifo(fifo, 0o666))
	require.NoError(t, os.Chmod(fifo, 0o666))
	fd, err := syscall.Open(fifo, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Close(fd) })

	const script = `ls -la /var/ /var/tmp/
grep -F /var /proc/self/mountinfo
if echo FIFO-TOKEN > /var/tmp/control; then echo WROTE fifo; fi
if echo x > /var/tmp/new-file; then echo WROTE file; fi
echo end`
	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"default user", nil},
		{"root", []Option{WithUser(0, 0)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := sh(t, engine(t, EngineBwrap, append([]Option{WithWorkspace(workspaceDir(t))}, c.opts...)...), script)
			require.Contains(t, string(o.Stdout), "end\n", "the attack did not run")
			assert.NotContains(t, string(o.Stdout), "WROTE fifo", "a bwrap command opened the host FIFO behind the /var/tmp symlink for writing")
			assert.Empty(t, s32FifoRead(t, fd), "a bwrap command wrote to the host FIFO behind the /var/tmp symlink")
		})
	}
}
