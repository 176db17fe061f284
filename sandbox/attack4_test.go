package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A command in the sandbox writes the workspace, and empty files cost it
// nothing but inodes: about three million fit in the default two-minute
// timeout (300,000 took 8 s with touch). Listing or searching the workspace
// runs in the host program, which read a directory whole: 300,000 entries
// held 111 MB and took 1.3 s per listing (Go stats every entry of a
// directory opened in an os.Root), so a few calls on such a directory took
// the program's memory. (Seen succeeding first: the listing of
// maxDirEntries+1 entries came back whole.) A directory over the bound is
// now refused with ErrTooLarge (a resource limit), and one at the bound is
// still listed.
func TestAttackHugeDirectoryListing(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	require.NoError(t, os.Mkdir(big, 0o755))
	for i := range maxDirEntries + 1 {
		f, err := os.Create(filepath.Join(big, strconv.Itoa(i)))
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "small.txt"), []byte("x"), 0o644))
	ws, err := OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()

	entries, _, err := ws.ReadDirHidden("big")
	require.ErrorIs(t, err, ErrTooLarge, "a listing of %d entries came back", len(entries))
	require.ErrorIs(t, err, ErrResourceLimit)
	assert.Contains(t, err.Error(), strconv.Itoa(maxDirEntries))

	// A walk is told about the directory, and goes on past it.
	var walked []string
	var bigErr error
	_, err = ws.WalkHidden(".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			bigErr = err
			return fs.SkipDir
		}
		walked = append(walked, rel)
		return nil
	})
	require.NoError(t, err)
	require.ErrorIs(t, bigErr, ErrTooLarge)
	assert.Equal(t, []string{".", "big", "small.txt"}, walked)

	// At the bound the directory is listed.
	require.NoError(t, os.Remove(filepath.Join(big, "0")))
	entries, _, err = ws.ReadDirHidden("big")
	require.NoError(t, err)
	assert.Len(t, entries, maxDirEntries)
}
