package hostpath

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolve(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	target := filepath.Join(root, "real [1]")
	require.NoError(t, os.MkdirAll(filepath.Join(target, "sub"), 0o755))
	require.NoError(t, os.Symlink(target, filepath.Join(root, "abs")))
	require.NoError(t, os.Symlink("real [1]/sub", filepath.Join(root, "rel")))
	require.NoError(t, os.Symlink("loop2", filepath.Join(root, "loop1")))
	require.NoError(t, os.Symlink("loop1", filepath.Join(root, "loop2")))

	for in, want := range map[string]string{
		root + "/abs/sub/new/file": target + "/sub/new/file",
		root + "/rel/../x":         target + "/x", // ".." after a link: the target's parent
		root + "/abs/./sub":        target + "/sub",
		root + "/missing/../abs":   target,              // ".." leaves what is missing: the link is followed
		root + "/missing/x/../y":   root + "/missing/y", // below a missing component, as written
		"/":                        "/",
	} {
		got, ok := Resolve(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	_, ok := Resolve(root + "/loop1/x")
	assert.False(t, ok, "a symlink loop is not resolved")
	_, ok = Resolve("relative/path")
	assert.False(t, ok)

	// From a directory: only the name's own components are looked at.
	got, ok := ResolveIn(root, "abs/sub")
	assert.True(t, ok)
	assert.Equal(t, target+"/sub", got)
	got, ok = ResolveIn("/nonexistent", root+"/rel")
	assert.True(t, ok)
	assert.Equal(t, target+"/sub", got, "an absolute name is taken from the root")
}

func ExampleResolve() {
	// The rest after a missing component is taken as written.
	resolved, ok := Resolve("/no/such/dir/../file")
	fmt.Println(resolved, ok)
	// Output: /no/such/file true
}

func TestExpand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KEYDIR", "/keys")
	for in, want := range map[string]string{
		"~/.ssh/id":       home + "/.ssh/id",
		"~":               home,
		"$HOME/.ssh/id":   home + "/.ssh/id",
		"${KEYDIR}/id":    "/keys/id",
		"~root/x":         "", // depends on the host's root entry: checked below
		"docs/a":          "",
		"$UNSET_TB_VAR/x": "/x",
	} {
		got, ok := Expand(in)
		switch {
		case in == "~root/x":
			assert.True(t, ok && got != in, "~root/x: %q", got)
		case want == "":
			assert.False(t, ok, "%s: %q", in, got)
		default:
			assert.True(t, ok, in)
			assert.Equal(t, want, got, in)
		}
	}
}

func TestFileURLPath(t *testing.T) {
	for in, want := range map[string]string{
		"file:///etc/shadow":            "/etc/shadow",
		"FILE:/etc/shadow":              "/etc/shadow",
		"file://localhost/etc/%73hadow": "/etc/shadow",
		" \tfile:///a\n/b":              "/a/b",
		"file:///etc/shadow%zz":         "/etc/shadow%zz", // Go refuses it; cut by hand
		"file://a b/etc/shadow?x#y":     "/etc/shadow",
		"file://host":                   "/",
	} {
		got, ok := FileURLPath(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"https://x/etc/shadow", "fil:/x", "/etc/shadow", ""} {
		_, ok := FileURLPath(in)
		assert.False(t, ok, in)
	}
}

// Leads gives both places a path with a ".." after a link reaches: as
// written (the link's target's parent) and cleaned (the link dropped),
// one place when they agree, and nothing when either cannot be judged.
func TestLeads(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "elsewhere", "deep"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "home", ".ssh"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(root, "elsewhere", "deep"), filepath.Join(root, "out")))
	require.NoError(t, os.Symlink(filepath.Join(root, "home", ".ssh"), filepath.Join(root, "notes")))
	require.NoError(t, os.Symlink("loop2", filepath.Join(root, "loop1")))
	require.NoError(t, os.Symlink("loop1", filepath.Join(root, "loop2")))

	got, ok := Leads(root, "out/../notes/id")
	require.True(t, ok)
	assert.Equal(t, []string{root + "/elsewhere/notes/id", root + "/home/.ssh/id"}, got)

	got, ok = Leads(root, "notes/id")
	require.True(t, ok)
	assert.Equal(t, []string{root + "/home/.ssh/id"}, got, "clean already: one place")

	_, ok = Leads(root, "x/../loop1/f")
	assert.False(t, ok, "a loop on the way cannot be judged")
}
