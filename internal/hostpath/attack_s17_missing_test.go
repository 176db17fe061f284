package hostpath

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackS17DotDotAfterAMissingComponent: Resolve took everything
// after a missing component as written, ".." included, so in
// "missing/../link/x" the link was never looked at. A tool that makes the
// parent directories of what it writes (os.MkdirAll, mkdir -p) creates
// missing, comes back out of it, and follows link: the file lands where
// the link leads (HOME/.ssh), while the rules judged dir/link/x.
func TestAttackS17DotDotAfterAMissingComponent(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	secret := filepath.Join(root, "home", ".ssh")
	require.NoError(t, os.MkdirAll(secret, 0o700))
	ws := filepath.Join(root, "ws")
	require.NoError(t, os.Mkdir(ws, 0o755))
	require.NoError(t, os.Symlink(secret, filepath.Join(ws, "link")))

	for _, c := range []struct{ in, want string }{
		{ws + "/missing/../link/authorized_keys", secret + "/authorized_keys"},
		{ws + "/a/b/../../link/k", secret + "/k"},
		{ws + "/a/b/../../a/../link", secret},
		{ws + "/missing/../missing/x", ws + "/missing/x"},
		{ws + "/missing/../../ws/link/k", secret + "/k"},
	} {
		got, ok := Resolve(c.in)
		assert.True(t, ok, c.in)
		assert.Equal(t, c.want, got, c.in)
	}

	// What tools do with such paths: one that joins the argument to its
	// directory (filepath.Join cleans it, as Node's path.resolve does)
	// reads and writes through the link; one that makes parents with
	// mkdir -p creates missing, comes back out, and goes through it too.
	require.NoError(t, os.WriteFile(filepath.Join(secret, "id_rsa"), []byte("KEY"), 0o600))
	data, err := os.ReadFile(filepath.Join(ws, "missing/../link/id_rsa"))
	require.NoError(t, err)
	assert.Equal(t, "KEY", string(data))
	got, ok := Resolve(ws + "/missing/../link/id_rsa")
	assert.True(t, ok)
	assert.Equal(t, secret+"/id_rsa", got)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "missing/../link/made"), 0o755))
	assert.DirExists(t, filepath.Join(secret, "made"))
}
