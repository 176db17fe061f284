package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attack: a deny, deny-write or secrets glob that names a path through a
// symlink of the workspace. The rules are judged on a path's canonical
// form (symlinks resolved), in which a symlink's name never appears: with
// config a link to real, WithDeny("config/**") and even
// WithDeny("config/token") left config/token readable (it is real/token),
// WithSecrets("secret.txt") with secret.txt a link to data/s.txt read
// secret.txt, and WithDenyWrite("config/**") let config/new be written.
// A glob's literal head that resolves elsewhere when the workspace is
// opened now forbids what it resolves to as well.
func TestAttackForbidGlobThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"real/token", "data/s.txt", "other/x"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte("S"), 0o600))
	}
	require.NoError(t, os.Symlink("real", filepath.Join(dir, "config")))
	require.NoError(t, os.Symlink("data/s.txt", filepath.Join(dir, "secret.txt")))

	for _, g := range []string{"config/**", "config/token", "config/*"} {
		ws, err := OpenWorkspace(dir, WithDeny(g))
		require.NoError(t, err)
		for _, p := range []string{"config/token", "real/token"} {
			_, err := ws.ReadFile(p)
			if assert.True(t, errors.Is(err, ErrDeniedByRule), "WithDeny(%q): reading %s: %v", g, p, err) {
				assert.Contains(t, err.Error(), g, "the error names the glob as written")
			}
		}
		_, err = ws.ReadFile("other/x")
		assert.NoError(t, err, "WithDeny(%q) forbids only what it names", g)
		require.NoError(t, ws.Close())
	}

	ws, err := OpenWorkspace(dir, WithSecrets("secret.txt"))
	require.NoError(t, err)
	_, err = ws.ReadFile("secret.txt")
	assert.True(t, errors.Is(err, ErrDeniedByRule), "reading secret.txt: %v", err)
	_, err = ws.Lstat("secret.txt")
	assert.True(t, errors.Is(err, ErrDeniedByRule), "the link itself: %v", err)
	require.NoError(t, ws.Close())

	ws, err = OpenWorkspace(dir, WithDenyWrite("config/**"))
	require.NoError(t, err)
	err = ws.WriteFile("config/new", []byte("x"), 0o600)
	assert.True(t, errors.Is(err, ErrDeniedByRule), "writing config/new: %v", err)
	assert.NoError(t, ws.WriteFile("other/new", []byte("x"), 0o600))
	require.NoError(t, ws.Close())
}
