//go:build unix

package sandbox_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// A process that runs under umask 077 (so that what it writes is its
// user's alone: a service holding keys, a shared host) had every file the
// workspace created 0644, readable by every user of the host, while the
// directories it made were 0700: WriteFile set the temporary file's mode
// with fchmod, past the umask, before renaming it into place. A new file
// now follows the umask as os.WriteFile's does; a file replaced keeps its
// mode exactly (the umask is for creating). The umask is process-wide:
// this test is not parallel, and none in the package is.
func TestAttackS17WriteFileFollowsTheUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	t.Cleanup(func() { syscall.Umask(old) })

	ref := filepath.Join(t.TempDir(), "ref")
	require.NoError(t, os.WriteFile(ref, []byte("r"), 0o644))
	fi, err := os.Stat(ref)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o600), fi.Mode().Perm(), "os.WriteFile follows the umask")

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "shared.txt"), []byte("s"), 0o600))
	require.NoError(t, os.Chmod(filepath.Join(dir, "shared.txt"), 0o664))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()

	require.NoError(t, ws.MkdirAll("notes", 0)) // as write_file makes a new file's directory
	require.NoError(t, ws.WriteFile("notes/new.txt", []byte("n"), 0))
	require.NoError(t, ws.WriteFile("explicit.txt", []byte("e"), 0o666))
	for name, want := range map[string]fs.FileMode{
		"notes":         0o700, // MkdirAll's, through the umask
		"notes/new.txt": 0o600, // 0644 through the umask
		"explicit.txt":  0o600, // 0666 through the umask
	} {
		fi, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, want, fi.Mode().Perm(), name)
	}

	require.NoError(t, ws.WriteFile("shared.txt", []byte("t"), 0))
	fi, err = os.Stat(filepath.Join(dir, "shared.txt"))
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o664), fi.Mode().Perm(), "a file replaced keeps its mode")
	b, err := os.ReadFile(filepath.Join(dir, "shared.txt"))
	require.NoError(t, err)
	assert.Equal(t, "t", string(b))
}
