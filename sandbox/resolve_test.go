package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Resolve turns every spelling of a path into one canonical form.
func TestWorkspaceResolve(t *testing.T) {
	ws, outside := newTestWorkspace(t)
	dir := ws.Dir()
	for _, d := range []string{"docs/sub", "secrets", "src"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	links := map[string]string{
		"alias":         "secrets",
		"docs/code":     "../src",
		"docs/abs":      filepath.Join(dir, "secrets"),
		"chain":         "docs/code",
		"dangling":      "src/new.go",
		"docs/sub/up":   "../..",
		"loop1":         "loop2",
		"loop2":         "loop1",
		"out":           "../outside",
		"docs/sneaky":   "../../outside/secret.txt",
		"docs/absout":   outside,
		"docs/selfroot": "/",
	}
	for l, target := range links {
		require.NoError(t, os.Symlink(target, filepath.Join(dir, l)))
	}
	cases := []struct {
		in, want string
		err      error
		rule     string
	}{
		{"ok.txt", "ok.txt", nil, ""},
		{"./ok.txt", "ok.txt", nil, ""},
		{"docs//sub/./../sub", "docs/sub", nil, ""},
		{".", ".", nil, ""},
		{dir, ".", nil, ""},
		{filepath.Join(dir, "secrets", "key"), "secrets/key", nil, ""},
		{"alias/key", "secrets/key", nil, ""},
		{"alias", "secrets", nil, ""},
		{"docs/code/main.go", "src/main.go", nil, ""},
		{"docs/abs/key", "secrets/key", nil, ""},
		{"chain/x/y", "src/x/y", nil, ""},
		{"dangling", "src/new.go", nil, ""},
		{"docs/sub/up/alias/key", "secrets/key", nil, ""},
		{"missing/a/../b", "missing/b", nil, ""},
		{"ok.txt/x", "ok.txt/x", nil, ""},
		{"../outside/secret.txt", "", ErrOutsideWorkspace, `".." leaves the workspace`},
		{filepath.Join(outside, "secret.txt"), "", ErrOutsideWorkspace, "absolute path outside"},
		{"out/secret.txt", "", ErrOutsideWorkspace, `symlink "out" -> "../outside" leads out of the workspace`},
		{"docs/sneaky", "", ErrOutsideWorkspace, `symlink "docs/sneaky" -> "../../outside/secret.txt" leads out`},
		{"docs/absout/secret.txt", "", ErrOutsideWorkspace, "leads out of the workspace"},
		{"docs/selfroot/etc/passwd", "", ErrOutsideWorkspace, "leads out of the workspace"},
		{"loop1", "", ErrInvalidPath, "more than 40 symlinks"},
		{"", "", ErrInvalidPath, "non-empty"},
		{"a\x00b", "", ErrInvalidPath, "NUL"},
	}
	// Both ways: one openat2 settling link-free paths, and the component
	// walk alone (as on kernels without openat2).
	defer noOpenat2.Store(noOpenat2.Load())
	for _, walkOnly := range []bool{false, true} {
		noOpenat2.Store(walkOnly)
		for _, tc := range cases {
			t.Run(fmt.Sprintf("walk only %v %s", walkOnly, tc.in), func(t *testing.T) {
				got, err := ws.Resolve(tc.in)
				if tc.err != nil {
					require.ErrorIs(t, err, tc.err)
					assert.ErrorIs(t, err, ErrFilesystemPolicy)
					assert.ErrorContains(t, err, tc.rule)
					assert.ErrorContains(t, err, fmt.Sprintf("%q", tc.in), "the error names the path")
					return
				}
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
			})
		}
	}
	got, err := ws.Lresolve("docs/code")
	require.NoError(t, err)
	assert.Equal(t, "docs/code", got, "Lresolve keeps a final link")
	got, err = ws.Lresolve("chain/a")
	require.NoError(t, err)
	assert.Equal(t, "src/a", got, "links before the last component are followed")
	got, err = ws.Lresolve("out")
	require.NoError(t, err)
	assert.Equal(t, "out", got, "the link itself is inside")
}

// Protected names hold at any depth and through links; the option replaces
// them; reading is not affected.
func TestWorkspaceProtectedNames(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	dir := ws.Dir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "vendor/lib/.git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "vendor/lib/.git/config"), []byte("[core]"), 0o644))
	require.NoError(t, os.Symlink("vendor/lib/.git/config", filepath.Join(dir, "cfg")))
	for _, p := range []string{"vendor/lib/.git/config", "cfg", "x/.Hg/hgrc", "deep/a/b/.svn/wc.db", ".git"} {
		require.ErrorIs(t, ws.WriteFile(p, []byte("x"), 0), ErrProtected, p)
		require.ErrorIs(t, ws.MkdirAll(p+"/d", 0), ErrProtected, p)
	}
	require.ErrorIs(t, ws.Remove("vendor/lib/.git/config"), ErrProtected)
	require.ErrorIs(t, ws.Rename("ok.txt", "vendor/lib/.git/hooks"), ErrProtected)
	require.ErrorIs(t, ws.Rename("vendor/lib/.git", "vendor/lib/git"), ErrProtected)
	b, err := ws.ReadFile("cfg")
	require.NoError(t, err)
	assert.Equal(t, "[core]", string(b))
	assert.NoDirExists(t, filepath.Join(dir, "x"), "nothing was made")

	ws2, err := OpenWorkspace(dir, WithProtectedNames(".jj"))
	require.NoError(t, err)
	defer ws2.Close()
	require.ErrorIs(t, ws2.WriteFile("a/.jj/repo", []byte("x"), 0), ErrProtected)
	require.NoError(t, ws2.WriteFile("vendor/lib/.git/config", []byte("[core]"), 0), "replaced, not extended")
	for _, bad := range []string{"", "a/b", ".."} {
		_, err = OpenWorkspace(dir, WithProtectedNames(bad))
		require.ErrorIs(t, err, ErrInvalidPath, bad)
	}
}

// A write through a symlink writes the target and keeps its mode, exactly
// (0664 survives the usual umask 022, which the temporary file's creation
// would apply); new files are 0644 through the umask; perm, when given,
// wins over a replaced file's mode. (The umask is process-wide, so the
// test does not change it; TestAttackS17WriteFileFollowsTheUmask does,
// alone.)
func TestWorkspaceWriteModes(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	dir := ws.Dir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "target"), []byte("a"), 0o640))
	require.NoError(t, os.Chmod(filepath.Join(dir, "target"), 0o664))
	require.NoError(t, os.Symlink("target", filepath.Join(dir, "link")))
	require.NoError(t, ws.WriteFile("link", []byte("b"), 0))
	fi, err := os.Lstat(filepath.Join(dir, "link"))
	require.NoError(t, err)
	assert.Equal(t, fs.ModeSymlink, fi.Mode().Type())
	fi, err = os.Stat(filepath.Join(dir, "target"))
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o664), fi.Mode().Perm())
	b, _ := os.ReadFile(filepath.Join(dir, "target"))
	assert.Equal(t, "b", string(b))

	require.NoError(t, ws.WriteFile("new.txt", []byte("n"), 0))
	fi, err = os.Stat(filepath.Join(dir, "new.txt"))
	require.NoError(t, err)
	ref := filepath.Join(t.TempDir(), "ref")
	require.NoError(t, os.WriteFile(ref, nil, 0o644))
	want, err := os.Stat(ref)
	require.NoError(t, err)
	assert.Equal(t, want.Mode().Perm(), fi.Mode().Perm(), "new files are 0644 through the umask, as os.WriteFile makes them")
	require.NoError(t, ws.WriteFile("new.txt", []byte("n"), 0o600))
	fi, _ = os.Stat(filepath.Join(dir, "new.txt"))
	assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm(), "an explicit perm wins")

	if os.Geteuid() == 0 {
		require.NoError(t, os.Chown(filepath.Join(dir, "target"), 65534, 65534))
		require.NoError(t, ws.WriteFile("target", []byte("c"), 0))
		fi, _ = os.Stat(filepath.Join(dir, "target"))
		st := fi.Sys().(*syscall.Stat_t)
		assert.Equal(t, []uint32{65534, 65534}, []uint32{st.Uid, st.Gid}, "a root writer keeps the owner")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".tb-*"))
	assert.Empty(t, left)
}

// WithHide hides what its function names: refused to every operation (also
// through a link), left out of listings, and counted.
func TestWorkspaceHide(t *testing.T) {
	var asked []string
	hide := func(rel, abs string) string {
		asked = append(asked, rel+"|"+abs)
		if rel == "secrets" || strings.HasPrefix(rel, "secrets/") {
			return "test rule"
		}
		return ""
	}
	ws, _ := newTestWorkspace(t, WithHide(hide), WithHide(nil))
	dir := ws.Dir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets/key"), []byte("k"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "pub/inner"), 0o755))
	require.NoError(t, os.Symlink("../../secrets/key", filepath.Join(dir, "pub/inner/k")))
	for _, p := range []string{"secrets/key", "pub/inner/k", filepath.Join(dir, "secrets")} {
		_, err := ws.ReadFile(p)
		require.ErrorIs(t, err, ErrHidden, p)
		assert.ErrorIs(t, err, ErrFilesystemPolicy)
		assert.ErrorContains(t, err, `test rule (canonical path "secrets`)
	}
	require.ErrorIs(t, ws.WriteFile("pub/inner/k", []byte("x"), 0), ErrHidden)
	_, err := ws.ReadDir("secrets")
	require.ErrorIs(t, err, ErrHidden)
	entries, hidden, err := ws.ReadDirHidden(".")
	require.NoError(t, err)
	assert.Equal(t, 1, hidden)
	for _, e := range entries {
		assert.NotEqual(t, "secrets", e.Name())
	}
	var walked []string
	n, err := ws.WalkHidden(".", func(p string, d fs.DirEntry, err error) error {
		walked = append(walked, p)
		return err
	})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, []string{".", "ok.txt", "pub", "pub/inner", "pub/inner/k"}, walked, "a link's name is listed; what it leads to is judged when read")
	assert.Contains(t, asked, "secrets/key|"+filepath.Join(dir, "secrets/key"), "the function sees the canonical and the host path")
}

// BenchmarkResolve resolves a four-component path with a symlink on the
// way (the component walk) and without (one openat2), against the lexical
// check alone that the workspace did before.
func BenchmarkResolve(b *testing.B) {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src", "pkg", "sub"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(dir, "link")); err != nil {
		b.Fatal(err)
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	b.Run("resolve", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if rel, err := ws.Resolve("./link/pkg/sub/file.go"); err != nil || rel != "src/pkg/sub/file.go" {
				b.Fatal(rel, err)
			}
		}
	})
	b.Run("resolve-no-link", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if rel, err := ws.Resolve("./src/pkg/sub/file.go"); err != nil || rel != "src/pkg/sub/file.go" {
				b.Fatal(rel, err)
			}
		}
	})
	b.Run("lexical", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ws.lexical("resolve", "./link/pkg/sub/file.go"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
