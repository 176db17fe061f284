package sandbox

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A directory swapped for a symlink (into .git, or into a hidden directory)
// between MkdirAll's check and the creation got directories made behind
// the link: os.Root.MkdirAll follows links inside the root, and the rules
// were judged on the real path only after the directories existed. Seen
// failing on the old code (vendor/.git/hooks/new and secrets/new created).
func TestMkdirAllSwapRace(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"d", "vendor/.git/hooks", "secrets"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.Symlink("vendor/.git/hooks", filepath.Join(dir, "glnk")))
	require.NoError(t, os.Symlink("secrets", filepath.Join(dir, "slnk")))
	ws, err := OpenWorkspace(dir, WithHide(func(rel, _ string) string {
		if Match("secrets/**", rel) {
			return "secrets/**"
		}
		return ""
	}))
	require.NoError(t, err)
	defer ws.Close()

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		d := filepath.Join(dir, "d")
		for !stop.Load() {
			for _, o := range []string{"glnk", "glnk", "slnk", "slnk"} {
				_ = unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, filepath.Join(dir, o), unix.RENAME_EXCHANGE)
			}
		}
	}()
	made := 0
	for range 3000 {
		if ws.MkdirAll("d/new/sub", 0) == nil {
			made++
		}
		// Whatever d is now, clear what was made so the next round creates again.
		for _, p := range []string{"d/new/sub", "d/new", "vendor/.git/hooks/new/sub", "vendor/.git/hooks/new", "secrets/new/sub", "secrets/new"} {
			if os.Remove(filepath.Join(dir, p)) == nil && filepath.Dir(p) != "d" && filepath.Dir(filepath.Dir(p)) != "d" {
				t.Errorf("MkdirAll created %s behind a swapped-in symlink", p)
			}
		}
		if t.Failed() {
			break
		}
	}
	stop.Store(true)
	wg.Wait()
	assert.NoDirExists(t, filepath.Join(dir, "vendor/.git/hooks/new"))
	assert.NoDirExists(t, filepath.Join(dir, "secrets/new"))
	assert.Positive(t, made, "MkdirAll never succeeded while d was a real directory")
}

// MkdirAll through a symlink into a protected or hidden directory, and
// onto an existing symlink, is refused before anything is made.
func TestMkdirAllThroughLinks(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "vendor/.GIT"), 0o755))
	require.NoError(t, os.Symlink("vendor/.GIT", filepath.Join(dir, "g")))
	ws, err := OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	for _, p := range []string{"g/hooks", "vendor/.GIT/x", "vendor/.Git/x/y"} {
		err := ws.MkdirAll(p, 0)
		assert.ErrorIs(t, err, ErrProtected, p)
	}
	assert.NoDirExists(t, filepath.Join(dir, "vendor/.GIT/hooks"))
	assert.NoDirExists(t, filepath.Join(dir, "vendor/.Git"))
	require.NoError(t, ws.MkdirAll("a/b/c", 0))
	fi, err := os.Stat(filepath.Join(dir, "a/b/c"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm()&0o755)
}
