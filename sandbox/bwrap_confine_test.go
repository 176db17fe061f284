package sandbox

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A bwrap run's first process is this program's executable, run as the
// command's user (see internal/confine): when that user cannot execute it,
// the engine is unavailable and says what to change, rather than failing
// every run.
func TestBwrapUnavailableWhenTheCommandsUserCannotRunTheProgram(t *testing.T) {
	requireRoot(t) // commands run as 65534, who may not execute a 0700 file of root's
	if abi, err := landlockABI(); err != nil || abi < 2 {
		t.Skipf("no Landlock ABI 2, so no run starts this program: %d, %v", abi, err)
	}
	engine(t, EngineBwrap) // available as the program is
	exe, err := os.Executable()
	require.NoError(t, err)
	fi, err := os.Stat(exe)
	require.NoError(t, err)
	require.NoError(t, os.Chmod(exe, 0o700))
	t.Cleanup(func() { require.NoError(t, os.Chmod(exe, fi.Mode().Perm())) })

	_, err = New(EngineBwrap)
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "the command's user cannot run this program's executable")
	assert.Contains(t, err.Error(), "chmod o+x")
}

// What a confined bwrap command may still do: write, rename and link
// across directories of its workspace (Landlock's REFER right, which the
// domain grants there) and of /tmp, and write to /dev/null. (Reopening its
// own output pipe through /dev/stdout fails on bwrap with or without the
// confinement: the pipe is root's on the host, unmapped in the run.)
func TestBwrapConfinedCommandStillRenamesAndLinksAcrossDirectories(t *testing.T) {
	ws := workspaceDir(t)
	const script = `set -e
cd "$1"
mkdir -p a b
echo one > a/f
mv a/f b/f
ln b/f a/g
ln -s ../b/f a/s
mkdir -p /tmp/x /tmp/y
echo two > /tmp/x/f
mv /tmp/x/f /tmp/y/f
echo three > /dev/null
cat a/g a/s /tmp/y/f
echo end`
	o := sh(t, engine(t, EngineBwrap, WithWorkspace(ws)), script, ws)
	assert.Equal(t, "one\none\ntwo\nend\n", string(o.Stdout), "stderr: %s", o.Stderr)
	data, err := os.ReadFile(ws + "/b/f")
	require.NoError(t, err)
	assert.Equal(t, "one\n", string(data))
}
