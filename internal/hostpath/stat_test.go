package hostpath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// isLink and IsDir answer as os.Lstat and os.Stat do, and their errors
// read the same to asWritten, on every kind of name resolveIn and the
// policy's hostDir look at.
func TestStatAnswersAsOs(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "dir"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "file"), []byte("x"), 0o644))
	require.NoError(t, os.Symlink("dir", filepath.Join(root, "to-dir")))
	require.NoError(t, os.Symlink("file", filepath.Join(root, "to-file")))
	require.NoError(t, os.Symlink("missing", filepath.Join(root, "dangling")))
	require.NoError(t, os.Symlink("loop", filepath.Join(root, "loop")))
	names := []string{
		root, "", ".", "/",
		filepath.Join(root, "dir"),
		filepath.Join(root, "file"),
		filepath.Join(root, "to-dir"),
		filepath.Join(root, "to-dir") + "/",
		filepath.Join(root, "to-file"),
		filepath.Join(root, "dangling"),
		filepath.Join(root, "loop"),
		filepath.Join(root, "loop", "x"),
		filepath.Join(root, "missing"),
		filepath.Join(root, "file", "below"), // ENOTDIR
		filepath.Join(root, "nul\x00byte"),   // EINVAL
		"/" + strings.Repeat("a", 300),       // ENAMETOOLONG
	}
	for _, name := range names {
		fi, osErr := os.Lstat(name)
		link, err := isLink(name)
		if osErr != nil {
			assert.Error(t, err, "isLink(%q)", name)
			assert.Equal(t, asWritten(osErr), asWritten(err), "isLink(%q): %v against os.Lstat's %v", name, err, osErr)
			var errno syscall.Errno
			if errors.As(osErr, &errno) {
				assert.ErrorIs(t, err, errno, "isLink(%q)", name)
			}
		} else {
			assert.NoError(t, err, "isLink(%q)", name)
			assert.Equal(t, fi.Mode()&fs.ModeSymlink != 0, link, "isLink(%q)", name)
		}
		fi, osErr = os.Stat(name)
		assert.Equal(t, osErr == nil && fi.IsDir(), IsDir(name), "IsDir(%q)", name)
	}
}
