package sandbox

import (
	"fmt"
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

// A directory swapped for a symlink to a directory whose files the rules
// hide, between ReadDirHidden's resolution and its open, had the entries
// of the directory really opened judged under the name resolved before the
// swap ("a/id.key" rather than "secrets/id.key"), so the listing named a
// hidden file. Seen failing on the old code.
func TestReadDirSwapRace(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "a"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a/readme"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets/id.key"), nil, 0o644))
	require.NoError(t, os.Symlink("secrets", filepath.Join(dir, "slnk")))
	ws, err := OpenWorkspace(dir, WithHide(func(rel, _ string) string {
		if Match("secrets/*.key", rel) {
			return "secrets/*.key"
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
		for !stop.Load() {
			_ = unix.Renameat2(unix.AT_FDCWD, filepath.Join(dir, "a"), unix.AT_FDCWD, filepath.Join(dir, "slnk"), unix.RENAME_EXCHANGE)
		}
	}()
	listed := 0
	for range 5000 {
		entries, _, err := ws.ReadDirHidden("a")
		if err != nil {
			continue
		}
		listed++
		for _, e := range entries {
			if e.Name() == "id.key" {
				t.Errorf("ReadDirHidden(a) listed the hidden secrets/id.key behind a swapped-in symlink")
			}
		}
		if t.Failed() {
			break
		}
	}
	stop.Store(true)
	wg.Wait()
	assert.Positive(t, listed, "ReadDirHidden never succeeded")
}

// Rename judged only the two paths it was given: a directory holding what
// the rules refuse (a hidden file, a protected .git, a deny-write *.pem)
// was moved whole to a name under which nothing refused it any more, so
// the hidden file became readable and the protected directory writable.
// Seen failing on the old code.
func TestRenameDirectoryCarriesNoRefusedPath(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"conf/secret.txt", "conf/ok.txt", "lib/.git/config", "keys/k.pem", "plain/a/b.txt"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("TOPSECRET"), 0o644))
	}
	ws, err := OpenWorkspace(dir, WithHide(func(rel, _ string) string {
		if rel == "conf/secret.txt" {
			return "conf/secret.txt"
		}
		return ""
	}))
	require.NoError(t, err)
	defer ws.Close()

	for _, c := range [][2]string{{"conf", "open"}, {"lib", "lib2"}, {"keys", "keys2"}} {
		err := ws.Rename(c[0], c[1])
		assert.ErrorIs(t, err, ErrFilesystemPolicy, "%s -> %s", c[0], c[1])
		assert.NotContains(t, fmt.Sprint(err), "secret.txt", "the refusal names no hidden path")
		assert.DirExists(t, filepath.Join(dir, c[0]))
	}
	_, err = ws.ReadFile("open/secret.txt")
	assert.Error(t, err)
	// A directory with nothing refused under it moves, and back.
	require.NoError(t, ws.Rename("plain", "plain2"))
	require.NoError(t, ws.Rename("plain2", "plain"))
	assert.FileExists(t, filepath.Join(dir, "plain/a/b.txt"))
}

// An allow glob with "**" let every file be read: the allowance for the
// directories on the way to allowed files ("could a path below this one
// match?") was granted to regular files too, and below "**" anything could,
// so WithAllow("**/*.go") read notes.txt and .env. Seen failing on the old
// code.
func TestAllowGlobReadsOnlyWhatItNames(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"main.go", "notes.txt", ".env", "docs/a.md", "docs/b.txt", "docs/sub/c.txt"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644))
	}
	for _, c := range []struct {
		allow   string
		ok, not []string
	}{
		{"**/*.go", []string{"main.go"}, []string{"notes.txt", ".env", "docs/b.txt"}},
		{"docs/**/*.md", []string{"docs/a.md"}, []string{"docs/b.txt", "docs/sub/c.txt", "notes.txt"}},
	} {
		ws, err := OpenWorkspace(dir, WithAllow(c.allow))
		require.NoError(t, err)
		for _, p := range c.ok {
			_, err := ws.ReadFile(p)
			assert.NoError(t, err, "%s allows %s", c.allow, p)
		}
		for _, p := range c.not {
			_, err := ws.ReadFile(p)
			assert.ErrorIs(t, err, ErrDeniedByRule, "%s does not allow %s", c.allow, p)
			_, err = ws.Stat(p)
			assert.ErrorIs(t, err, ErrDeniedByRule, "%s does not allow stat of %s", c.allow, p)
		}
		// The directories on the way stay listable, and list only what is allowed.
		entries, err := ws.ReadDir("docs")
		require.NoError(t, err, c.allow)
		for _, e := range entries {
			assert.True(t, e.IsDir() || Match(c.allow, "docs/"+e.Name()), "%s lists docs/%s", c.allow, e.Name())
		}
		ws.Close()
	}
}
