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

// s32ReviewVarLayoutEnv is set when TestAttackS32ReviewVarLayout runs again
// in a mount namespace of its own.
const s32ReviewVarLayoutEnv = "TOOLBELT_S32_REVIEW_VARLAYOUT"

// Hosts lay /var out differently: /var/run a real directory (not a link
// to /run), /var/tmp a link to /tmp. e1e6970's Landlock domain grants
// writes beneath /var/run and /var/tmp, opening them inside the sandbox:
// a host FIFO in a real /var/run must stay out of reach (bwrap mounts a
// fresh tmpfs there), and /var/tmp -> /tmp must lead to the run's own /tmp,
// which the command may write. The test runs itself again in a mount
// namespace of its own where /var is a tmpfs laid out so (the host's /var
// is not touched).
func TestAttackS32ReviewVarLayout(t *testing.T) {
	requireRoot(t)
	if os.Getenv(s32ReviewVarLayoutEnv) != "" {
		s32ReviewVarLayoutInner(t)
		return
	}
	if !haveBinary("unshare") {
		t.Skip("needs unshare (util-linux) to make a mount namespace for the test")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
		`mount -t tmpfs -o mode=0755 tmpfs /var && mkdir -m 0755 /var/run && mkfifo -m 0666 /var/run/control && ln -s /tmp /var/tmp && exec "$0" -test.run '^TestAttackS32ReviewVarLayout$' -test.count 1 -test.v`,
		exe)
	cmd.Env = append(os.Environ(), s32ReviewVarLayoutEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	assert.NoError(t, err, "the test failed in its mount namespace (see its output above)")
	assert.Contains(t, string(out), "--- PASS: TestAttackS32ReviewVarLayout", "the test did not run in its mount namespace")
}

func s32ReviewVarLayoutInner(t *testing.T) {
	fi, err := os.Lstat("/var/run/control")
	require.NoError(t, err)
	require.Equal(t, os.ModeNamedPipe, fi.Mode()&os.ModeType, "/var/run/control is not a FIFO here")
	fd, err := syscall.Open("/var/run/control", syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Close(fd) })

	const script = `if [ -p /var/run/control ]; then echo "SEES the host FIFO"; fi
if echo FIFO-TOKEN > /var/run/control; then echo "wrote /var/run/control"; fi
if echo x > /var/tmp/s32 && [ "$(cat /tmp/s32)" = x ]; then echo "OK var-tmp"; fi
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
			assert.NotContains(t, string(o.Stdout), "SEES", "a bwrap command sees the host's /var/run")
			assert.Empty(t, s32FifoRead(t, fd), "a bwrap command wrote to the host FIFO in /var/run")
			assert.Contains(t, string(o.Stdout), "OK var-tmp\n", "a bwrap command cannot write its /tmp through /var/tmp -> /tmp")
		})
	}
	_, err = os.Lstat(filepath.Join("/tmp", "s32"))
	assert.True(t, os.IsNotExist(err), "the command's /tmp/s32 reached the host's /tmp")
}
