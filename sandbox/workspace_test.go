package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newTestWorkspace returns a workspace and, beside it, an outside directory
// holding secret.txt.
func newTestWorkspace(t *testing.T, opts ...WorkspaceOption) (*Workspace, string) {
	t.Helper()
	base := t.TempDir()
	base, err := filepath.EvalSymlinks(base)
	require.NoError(t, err)
	dir := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Mkdir(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.txt"), []byte("ok"), 0o644))
	ws, err := OpenWorkspace(dir, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	return ws, outside
}

func TestWorkspaceEscapes(t *testing.T) {
	ws, outside := newTestWorkspace(t)
	dir := ws.Dir()
	secret := filepath.Join(outside, "secret.txt")
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, "abs-link")))
	require.NoError(t, os.Symlink("../outside/secret.txt", filepath.Join(dir, "rel-link")))
	require.NoError(t, os.Symlink("rel-link", filepath.Join(dir, "chain1")))
	require.NoError(t, os.Symlink("chain1", filepath.Join(dir, "chain2")))
	require.NoError(t, os.Symlink("../outside", filepath.Join(dir, "dir-link")))
	require.NoError(t, os.Symlink("/proc/self/root", filepath.Join(dir, "proc-root")))
	require.NoError(t, os.Link(secret, filepath.Join(dir, "hard-link")))

	cases := []struct {
		name, path string
		want       error
		rule       string
	}{
		{"dotdot", "../outside/secret.txt", ErrOutsideWorkspace, `".." leaves the workspace`},
		{"dotdot inside a path", "a/../../outside/secret.txt", ErrOutsideWorkspace, `".." leaves the workspace`},
		{"absolute outside", secret, ErrOutsideWorkspace, "absolute path outside the workspace"},
		{"absolute /etc", "/etc/passwd", ErrOutsideWorkspace, "absolute path outside the workspace"},
		{"absolute symlink out", "abs-link", ErrOutsideWorkspace, "leads out of the workspace"},
		{"relative symlink out", "rel-link", ErrOutsideWorkspace, "leads out of the workspace"},
		{"symlink chain", "chain2", ErrOutsideWorkspace, "leads out of the workspace"},
		{"symlinked dir", "dir-link/secret.txt", ErrOutsideWorkspace, "leads out of the workspace"},
		{"proc self root", "proc-root/etc/passwd", ErrOutsideWorkspace, "leads out of the workspace"},
		{"hard link to outside file", "hard-link", ErrHardLink, "hard links"},
		{"empty", "", ErrInvalidPath, "non-empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, err := ws.ReadFile(tc.path)
			require.ErrorIs(t, err, tc.want)
			assert.Nil(t, data)
			assert.ErrorIs(t, err, ErrFilesystemPolicy)
			var pe *PathError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, pe.Rule, tc.rule)
			assert.Equal(t, tc.path, pe.Path)
			assert.Contains(t, err.Error(), tc.rule, "the message names the rule")

			_, err = ws.Open(tc.path)
			require.ErrorIs(t, err, tc.want)
		})
	}
	t.Run("writes through escapes", func(t *testing.T) {
		for _, p := range []string{"../outside/new.txt", filepath.Join(outside, "new.txt"), "dir-link/new.txt", "proc-root/tmp/new.txt"} {
			err := ws.WriteFile(p, []byte("x"), 0)
			require.ErrorIs(t, err, ErrOutsideWorkspace, p)
		}
		assert.NoFileExists(t, filepath.Join(outside, "new.txt"))
		require.ErrorIs(t, ws.WriteFile("hard-link", []byte("x"), 0), ErrHardLink)
		b, err := os.ReadFile(secret)
		require.NoError(t, err)
		assert.Equal(t, "secret", string(b))
		require.ErrorIs(t, ws.MkdirAll("../outside/d", 0), ErrOutsideWorkspace)
		require.ErrorIs(t, ws.Remove("dir-link/secret.txt"), ErrOutsideWorkspace)
		assert.FileExists(t, secret)
		require.ErrorIs(t, ws.Rename("ok.txt", "dir-link/moved.txt"), ErrOutsideWorkspace)
	})
	t.Run("absolute path inside is accepted", func(t *testing.T) {
		b, err := ws.ReadFile(filepath.Join(dir, "ok.txt"))
		require.NoError(t, err)
		assert.Equal(t, "ok", string(b))
	})
}

// A directory swapped for a symlink to the outside while files are opened
// concurrently never lets the outside file through.
func TestWorkspaceConcurrentSwap(t *testing.T) {
	ws, outside := newTestWorkspace(t)
	dir := ws.Dir()
	real := filepath.Join(dir, "real")
	require.NoError(t, os.Mkdir(real, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(real, "secret.txt"), []byte("inside"), 0o644))
	swap := filepath.Join(dir, "d")
	require.NoError(t, os.Symlink("real", swap))

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tmp := filepath.Join(dir, "d.tmp")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			target := "real"
			if i%2 == 1 {
				target = outside
			}
			_ = os.Remove(tmp)
			if os.Symlink(target, tmp) == nil {
				_ = os.Rename(tmp, swap)
			}
		}
	}()
	var inside, refused atomic.Int64
	var readers sync.WaitGroup
	for g := 0; g < 4; g++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			// 500 reads each, and on until the swap has been seen at
			// least once (bounded): on a busy machine the swapper may
			// not run at all during the first 2,000.
			for i := 0; i < 500 || (refused.Load() == 0 && i < 200_000); i++ {
				b, err := ws.ReadFile("d/secret.txt")
				if err == nil {
					assert.Equal(t, "inside", string(b))
					inside.Add(1)
					continue
				}
				if !errors.Is(err, ErrOutsideWorkspace) && !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("unexpected error: %v", err)
				}
				if errors.Is(err, ErrOutsideWorkspace) {
					refused.Add(1)
				}
			}
		}()
	}
	readers.Wait()
	close(stop)
	wg.Wait()
	assert.Positive(t, refused.Load(), "the swap was observed and refused")
	t.Logf("inside reads %d, refused %d", inside.Load(), refused.Load())
}

func TestWorkspaceRules(t *testing.T) {
	ws, _ := newTestWorkspace(t, WithDeny("secrets/**"), WithMaxFileSize(10))
	dir := ws.Dir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets", "a"), []byte("a"), 0o644))
	require.NoError(t, os.Symlink(".git/config", filepath.Join(dir, "innocent")))

	for _, p := range []string{".git/config", ".git", "sub/.git/config", "innocent", "a/.hg/x", "b/.SVN/entries"} {
		err := ws.WriteFile(p, []byte("x"), 0)
		require.ErrorIs(t, err, ErrProtected, p)
		assert.ErrorIs(t, err, ErrFilesystemPolicy, p)
		assert.Contains(t, err.Error(), "is protected at any depth", p)
	}
	cases := []struct {
		path, rule string
	}{
		{".env", `deny-write "**/.env"`},
		{"sub/.env", `deny-write "**/.env"`},
		{"keys/server.pem", `deny-write "**/*.pem"`},
		{"secrets/a", `deny "secrets/**"`},
	}
	for _, tc := range cases {
		err := ws.WriteFile(tc.path, []byte("x"), 0)
		require.ErrorIs(t, err, ErrDeniedByRule, tc.path)
		var pe *PathError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, tc.rule, pe.Rule, tc.path)
	}
	// Reading .git is fine (only writes are denied); reading secrets is not.
	b, err := ws.ReadFile(".git/config")
	require.NoError(t, err)
	assert.Equal(t, "[core]", string(b))
	_, err = ws.ReadFile("secrets/a")
	require.ErrorIs(t, err, ErrDeniedByRule)

	// A symlink inside the workspace cannot launder a protected path: the
	// write through "innocent" above was judged on .git/config.
	b, err = os.ReadFile(filepath.Join(dir, ".git", "config"))
	require.NoError(t, err)
	assert.Equal(t, "[core]", string(b))

	ws2, _ := newTestWorkspace(t, WithDeny("secrets/**"))
	require.NoError(t, os.MkdirAll(filepath.Join(ws2.Dir(), "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws2.Dir(), "secrets", "a"), []byte("a"), 0o644))
	require.NoError(t, os.Symlink("secrets/a", filepath.Join(ws2.Dir(), "alias")))
	_, err = ws2.ReadFile("alias")
	require.ErrorIs(t, err, ErrDeniedByRule, "the real path of a symlink is checked too")

	// Sizes.
	err = ws.WriteFile("big.txt", []byte("0123456789abc"), 0)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.ErrorIs(t, err, ErrResourceLimit)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.txt"), []byte("0123456789abc"), 0o644))
	_, err = ws.ReadFile("big.txt")
	require.ErrorIs(t, err, ErrTooLarge)
	code, ok := CodeOf(err)
	assert.True(t, ok)
	assert.Equal(t, CodeResourceLimit, code)

	// Not regular.
	_, err = ws.ReadFile(".")
	require.ErrorIs(t, err, ErrNotRegular)
}

func TestWorkspaceAllowList(t *testing.T) {
	ws, _ := newTestWorkspace(t, WithAllow("src/**", "README.md"))
	require.NoError(t, ws.MkdirAll("src/pkg", 0))
	require.NoError(t, ws.WriteFile("src/pkg/a.go", []byte("package a"), 0))
	require.NoError(t, ws.WriteFile("README.md", []byte("# r"), 0))
	err := ws.WriteFile("other.txt", []byte("x"), 0)
	require.ErrorIs(t, err, ErrDeniedByRule)
	assert.ErrorContains(t, err, "allow glob")
	_, err = ws.ReadFile("ok.txt")
	require.ErrorIs(t, err, ErrDeniedByRule)

	entries, err := ws.ReadDir(".")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"README.md", "src"}, names, "refused entries are not listed")
}

func TestWorkspaceFileOps(t *testing.T) {
	ws, outside := newTestWorkspace(t)
	require.NoError(t, os.Symlink(outside, filepath.Join(ws.Dir(), "out-link")))
	require.NoError(t, ws.MkdirAll("a/b", 0))
	require.NoError(t, ws.WriteFile("a/b/c.txt", []byte("one"), 0o600))
	require.NoError(t, ws.WriteFile("a/b/c.txt", []byte("two"), 0o600), "overwrite")
	b, err := ws.ReadFile("a/b/c.txt")
	require.NoError(t, err)
	assert.Equal(t, "two", string(b))
	fi, err := ws.Stat("a/b/c.txt")
	require.NoError(t, err)
	assert.Equal(t, int64(3), fi.Size())
	assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm())

	left, err := filepath.Glob(filepath.Join(ws.Dir(), "a", "b", ".tb-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file is left")

	f, err := ws.Open("a/b/c.txt")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	var walked []string
	require.NoError(t, ws.Walk(".", func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		walked = append(walked, p)
		return nil
	}))
	assert.Equal(t, []string{".", "a", "a/b", "a/b/c.txt", "ok.txt", "out-link"}, walked, "symlinks are listed, not followed")

	require.NoError(t, ws.Rename("a/b/c.txt", "a/d.txt"))
	require.NoError(t, ws.Remove("a/d.txt"))
	require.NoError(t, ws.Remove("a/b"))
	_, err = ws.Stat("a/b")
	require.ErrorIs(t, err, fs.ErrNotExist)

	p, err := ws.Path("a")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(ws.Dir(), "a"), p)
	_, err = ws.Path("../x")
	require.ErrorIs(t, err, ErrOutsideWorkspace)
	rel, err := ws.Rel(filepath.Join(ws.Dir(), "a", "..", "ok.txt"))
	require.NoError(t, err)
	assert.Equal(t, "ok.txt", rel)

	_, err = OpenWorkspace("")
	require.ErrorIs(t, err, ErrInvalidPath)
	_, err = OpenWorkspace(ws.Dir(), WithDeny("[bad"))
	require.ErrorIs(t, err, ErrInvalidPath)
	assert.ErrorContains(t, err, "[bad")
	_, err = OpenWorkspace(ws.Dir(), nil, WithMaxFileSize(-1))
	require.ErrorIs(t, err, ErrInvalidPath)
}
