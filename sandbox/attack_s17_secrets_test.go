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

// The default secrets named ".env" alone and "*.pem", so a workspace read
// .env.local and .env.production (where Next.js, Vite, dotenv-flow and
// Rails keep the real values, .env holding defaults), .env.keys (dotenvx's
// private keys), a TLS key server.key and a PKCS#12 bundle to the model.
// And the rules matched in any case by strings.ToLower, which folds no
// rune into another: keys/id_rſa (U+017F LATIN SMALL LETTER LONG S, which
// Unicode case folding holds equal to s) and server.\u212Aey (KELVIN SIGN,
// equal to k) matched no rule, though a case-insensitive file system may
// open id_rsa and server.key by those names.
func TestAttackS17DefaultSecretsCoverEnvVariantsKeysAndFoldedNames(t *testing.T) {
	secret := []string{
		".env.local", ".env.production", "app/.env.development.local", ".env.keys", ".ENV.Local",
		"server.key", "certs/tls.key", "certs/client.p12", "certs/client.pfx", "keys/deploy.ppk",
		"home/.ssh/id_ed25519_sk", "keys/id_rſa", "keys/ID_Rſa", "server.\u212Aey", "certs/ſerver.pem",
		".aws/credentials", ".pgpass", ".pypirc",
	}
	ordinary := []string{
		"main.go", "README.md", "keys/id_rsa.pub", "keyboard.go", "monkey.go", "docs/key.md",
		"src/keys.ts", ".envoy.yaml", "environment.ts", "env/config.go", "keys.key.go", "server.keys",
	}
	dir := t.TempDir()
	for _, f := range append(append([]string{}, secret...), ordinary...) {
		p := filepath.Join(dir, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("API_KEY=sk-live-123"), 0o644))
	}
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	for _, f := range secret {
		_, err := ws.ReadFile(f)
		if assert.Error(t, err, "%s was read", f) {
			assert.True(t, errors.Is(err, sandbox.ErrDeniedByRule), "%s: %v", f, err)
			assert.Contains(t, err.Error(), "secret", f)
		}
	}
	for _, f := range ordinary {
		_, err := ws.ReadFile(f)
		assert.NoError(t, err, f)
	}
	entries, _, err := ws.ReadDirHidden("keys")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"id_rsa.pub"}, names, "a secret is left out of a listing")
}

// The fold is Unicode's simple case folding both ways: a glob written
// with a rune that folds (ſ, the Kelvin sign) refuses the plain name, and
// one of WithDeny in another case refuses too.
func TestS17ForbidGlobsFoldBothWays(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"keys/id_rsa", "keys/kube", "docs/a.md"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	}
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithSecrets("**/id_rſa"), sandbox.WithDeny("keys/\u212Aube", "DOCS/Σ*"))
	require.NoError(t, err)
	defer ws.Close()
	for _, f := range []string{"keys/id_rsa", "keys/kube"} {
		_, err := ws.ReadFile(f)
		assert.ErrorIs(t, err, sandbox.ErrDeniedByRule, f)
	}
	for _, f := range []string{"docs/σ", "docs/ς"} {
		err := ws.WriteFile(f, []byte("x"), 0o644)
		assert.ErrorIs(t, err, sandbox.ErrDeniedByRule, f)
	}
	_, err = ws.ReadFile("docs/a.md")
	assert.NoError(t, err)
}
