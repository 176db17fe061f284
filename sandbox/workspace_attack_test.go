package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	ws := hiding(t, dir, "secrets/**")

	stop := swapping(dir, "d", "glnk", "glnk", "slnk", "slnk")
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
	stop()
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
	ws := hiding(t, dir, "secrets/*.key")
	stop := swapping(dir, "a", "slnk")
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
	stop()
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
	ws := hiding(t, dir, "conf/secret.txt")

	for _, c := range [][2]string{{"conf", "open"}, {"lib", "lib2"}, {"keys", "keys2"}} {
		err := ws.Rename(c[0], c[1])
		assert.ErrorIs(t, err, ErrFilesystemPolicy, "%s -> %s", c[0], c[1])
		assert.NotContains(t, fmt.Sprint(err), "secret.txt", "the refusal names no hidden path")
		assert.DirExists(t, filepath.Join(dir, c[0]))
	}
	_, err := ws.ReadFile("open/secret.txt")
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

// The FileInfo of a listed entry must be that of the directory listed: an
// lstat of the entry's host path when Info is called would follow a
// directory swapped for a symlink since, and give the size of the file of
// the same name where the link leads (hidden, or outside the workspace).
// Measured holding: os.Root's files read their entries' FileInfo with
// lstatat on the directory when listing (Go 1.26); this fails if that
// changes.
func TestReadDirInfoIsOfTheListedDirectory(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ws")
	out := filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(dir, "a"), filepath.Join(dir, "secrets"), out} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a/f"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets/f"), make([]byte, 4711), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(out, "f"), make([]byte, 4712), 0o644))
	require.NoError(t, os.Symlink("secrets", filepath.Join(dir, "slnk")))
	require.NoError(t, os.Symlink(out, filepath.Join(dir, "olnk")))
	ws := hiding(t, dir, "secrets/**")

	stop := swapping(dir, "a", "slnk", "slnk", "olnk", "olnk")
	for range 5000 {
		entries, _, err := ws.ReadDirHidden("a")
		if err != nil {
			continue
		}
		for _, e := range entries {
			if fi, err := e.Info(); err == nil && fi.Size() > 1 {
				t.Errorf("a/%s: size %d is another file's", e.Name(), fi.Size())
			}
		}
		if t.Failed() {
			break
		}
	}
	stop()
}

// deepName is the name of each directory of a deep path: 200 of them make
// a path longer than PATH_MAX (4096).
var deepName = strings.Repeat("a", 20)

// mkdeep makes n nested directories named deepName under dir (one at a time,
// past PATH_MAX) and, if content is not nil, a file "x" at the bottom.
func mkdeep(t *testing.T, dir string, n int, content []byte) {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	for range n {
		if err := unix.Mkdirat(fd, deepName, 0o755); err != nil && err != unix.EEXIST {
			require.NoError(t, err)
		}
		next, err := unix.Openat(fd, deepName, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		require.NoError(t, err)
		unix.Close(fd)
		fd = next
	}
	defer unix.Close(fd)
	if content != nil {
		xfd, err := unix.Openat(fd, "x", unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o644)
		require.NoError(t, err)
		_, err = unix.Write(xfd, content)
		unix.Close(xfd)
		require.NoError(t, err)
	}
}

// deepExists reports whether name exists at the bottom of n nested
// deepName directories under dir.
func deepExists(t *testing.T, dir string, n int, name string) bool {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	for range n {
		next, err := unix.Openat(fd, deepName, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		require.NoError(t, err)
		fd = next
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	return unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}

// Past PATH_MAX the kernel cannot name an open file in /proc/self/fd
// (readlink fails with ENAMETOOLONG), and the check of what was really
// opened took that for "no /proc" and let it pass: a top directory swapped
// for a symlink into secrets/ between resolution and open let ReadFile of a
// deep path return a hidden file, and one swapped for a symlink into .git
// let WriteFile write there. Seen failing on the old code.
func TestDeepPathSwapRace(t *testing.T) {
	dir := t.TempDir()
	const n = 200 // past PATH_MAX (4096)
	mkdeep(t, dir, n, []byte("public"))
	for _, d := range []string{"secrets", "vendor/.git"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	mkdeep(t, filepath.Join(dir, "secrets"), n-1, []byte("TOPSECRET"))
	mkdeep(t, filepath.Join(dir, "vendor/.git"), n-1, nil)
	require.NoError(t, os.Symlink("secrets", filepath.Join(dir, "slnk")))
	require.NoError(t, os.Symlink("vendor/.git", filepath.Join(dir, "glnk")))
	ws := hiding(t, dir, "secrets/**")
	deep := strings.Repeat(deepName+"/", n)

	stop := swapping(dir, deepName, "slnk", "slnk", "glnk", "glnk")
	for range 500 {
		if b, err := ws.ReadFile(deep + "x"); err == nil && string(b) != "public" {
			t.Errorf("ReadFile of a deep path returned %q behind a swapped-in symlink", b)
		}
		_ = ws.WriteFile(deep+"w", []byte("payload"), 0)
		if t.Failed() {
			break
		}
	}
	stop()
	gitDeep := deepExists(t, filepath.Join(dir, "vendor/.git"), n-1, "w")
	assert.False(t, gitDeep, "WriteFile wrote into vendor/.git behind a swapped-in symlink")
}

// Stat judged the path it resolved, then stat'ed the name again: a file
// swapped for a symlink to a hidden file in between gave the hidden file's
// size, mode and times. Seen failing on the old code.
func TestStatSwapRace(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets/id.key"), make([]byte, 4321), 0o600))
	require.NoError(t, os.Symlink("secrets/id.key", filepath.Join(dir, "slnk")))
	ws := hiding(t, dir, "secrets/*.key")
	stop := swapping(dir, "a", "slnk")
	seen := 0
	for range 5000 {
		fi, err := ws.Stat("a")
		if err != nil {
			continue
		}
		seen++
		if fi.Size() == 4321 {
			t.Errorf("Stat(a) gave the hidden secrets/id.key's size behind a swapped-in symlink")
			break
		}
	}
	stop()
	assert.Positive(t, seen, "Stat never succeeded")
}

// swapping exchanges dir/name with each of dir/others in turn
// (RENAME_EXCHANGE), over and over, until the returned stop is called.
func swapping(dir, name string, others ...string) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !done.Load() {
			for _, o := range others {
				_ = unix.Renameat2(unix.AT_FDCWD, filepath.Join(dir, name), unix.AT_FDCWD, filepath.Join(dir, o), unix.RENAME_EXCHANGE)
			}
		}
	}()
	return func() { done.Store(true); wg.Wait() }
}

// hiding opens dir as a workspace that hides what pattern matches.
func hiding(t *testing.T, dir, pattern string) *Workspace {
	t.Helper()
	// No secrets: the default ones ("**/*.key") would hide a/id.key
	// too, and the swap tests could no longer fail.
	ws, err := OpenWorkspace(dir, WithSecrets(), WithHide(func(rel, _ string) string {
		if Match(pattern, rel) {
			return pattern
		}
		return ""
	}))
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	return ws
}
