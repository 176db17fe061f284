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
	if _, err := landlockABI(); err != nil {
		t.Skipf("no Landlock, so no run starts this program: %v", err)
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
