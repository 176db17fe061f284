package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attack: a secret, deny or deny-write glob and a path that differ in
// case only. The default secrets name "PEM files" as "**/*.pem", and the
// workspace read keys/server.PEM (a PEM key as Windows tools name it) and
// wrote .ENV; on a case-insensitive file system (macOS's default)
// "KEYS/SERVER.PEM" opens keys/server.pem and "Secrets/a" secrets/a, past
// "secrets/**". The rules that refuse now match case-insensitively, as the
// protected names already did ([WithProtectedNames]); allow globs do not
// (a case they do not name stays refused).
func TestAttackForbidGlobsIgnoreCase(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"keys/server.PEM", "keys/Id_RSA", "Secrets/token", "docs/readme.md", "Docs/readme.md"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte("PRIVATE"), 0o600))
	}
	ws, err := OpenWorkspace(dir, WithDeny("secrets/**"))
	require.NoError(t, err)
	for _, p := range []string{"keys/server.PEM", "keys/Id_RSA", "Secrets/token"} {
		_, err := ws.ReadFile(p)
		assert.True(t, errors.Is(err, ErrDeniedByRule), "reading %s: %v", p, err)
	}
	for _, p := range []string{".ENV", "keys/new.Pem"} {
		err := ws.WriteFile(p, []byte("X=1"), 0o600)
		assert.True(t, errors.Is(err, ErrDeniedByRule), "writing %s: %v", p, err)
	}
	_, err = ws.ReadFile("docs/readme.md")
	assert.NoError(t, err)

	ws, err = OpenWorkspace(dir, WithAllow("docs/**"))
	require.NoError(t, err)
	_, err = ws.ReadFile("docs/readme.md")
	assert.NoError(t, err)
	_, err = ws.ReadFile("Docs/readme.md")
	assert.True(t, errors.Is(err, ErrDeniedByRule), "an allow glob names its own case only: %v", err)
}
