package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

func secretsTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{".env", "app/.env", "certs/server.pem", "home/.ssh/id_ed25519", "home/.ssh/id_rsa",
		".git-credentials", ".netrc", "README.md", ".env.example", "home/.ssh/id_rsa.pub"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("API_KEY=sk-live-123"), 0o644))
	}
	return dir
}

// A workspace opened the way the README opens one handed .env files,
// private keys and stored credentials to the model (read_file,
// search_files): a prompt injection in any file read earlier could ask for
// them. By default they are refused for reading and left out of listings.
func TestDefaultWorkspaceRefusesToReadSecrets(t *testing.T) {
	ws, err := sandbox.OpenWorkspace(secretsTree(t))
	require.NoError(t, err)
	defer ws.Close()
	// A template (.env.example) is refused too: what one holds cannot be
	// told from its name (TestAttackS17DefaultSecretsCoverEnvVariantsKeysAndFoldedNames).
	for _, f := range []string{".env", "app/.env", "certs/server.pem", "home/.ssh/id_ed25519", "home/.ssh/id_rsa", ".git-credentials", ".netrc", ".env.example"} {
		_, err := ws.ReadFile(f)
		require.Error(t, err, "%s was read", f)
		assert.True(t, errors.Is(err, sandbox.ErrDeniedByRule), "%s: %v", f, err)
		assert.Contains(t, err.Error(), "secret")
	}
	for _, f := range []string{"README.md", "home/.ssh/id_rsa.pub"} {
		_, err := ws.ReadFile(f)
		assert.NoError(t, err, f)
	}
	entries, hidden, err := ws.ReadDirHidden(".")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.NotContains(t, names, ".env")
	assert.NotContains(t, names, ".netrc")
	assert.Equal(t, 4, hidden)
}

// WithSecrets replaces the list; with none, secrets are read like any file.
func TestWithSecretsReplacesTheDefault(t *testing.T) {
	dir := secretsTree(t)
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithSecrets())
	require.NoError(t, err)
	defer ws.Close()
	b, err := ws.ReadFile(".env")
	require.NoError(t, err)
	assert.Equal(t, "API_KEY=sk-live-123", string(b))

	ws2, err := sandbox.OpenWorkspace(dir, sandbox.WithSecrets("**/README.md"))
	require.NoError(t, err)
	defer ws2.Close()
	_, err = ws2.ReadFile("README.md")
	assert.ErrorIs(t, err, sandbox.ErrDeniedByRule)
	_, err = ws2.ReadFile(".env")
	assert.NoError(t, err)

	_, err = sandbox.OpenWorkspace(dir, sandbox.WithSecrets("/abs/**"))
	assert.ErrorContains(t, err, "WithSecrets")
}

// Writing a secret file keeps its deny-write rule (and message).
func TestSecretsKeepTheirDenyWriteRule(t *testing.T) {
	ws, err := sandbox.OpenWorkspace(secretsTree(t))
	require.NoError(t, err)
	defer ws.Close()
	err = ws.WriteFile(".env", []byte("x"), 0o644)
	assert.ErrorContains(t, err, `deny-write "**/.env"`)
}
