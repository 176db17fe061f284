package sandbox_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// Attack: a secret the workspace will not read, overwritten. The default
// secrets grew (.env.*, *.key, PKCS#12, SSH keys, stored credentials,
// Terraform state) while DefaultDenyWrite stayed .env and *.pem, so the
// model could not read .env.production but could replace it (its
// DATABASE_URL pointed at the attacker's host at the next deploy), nor
// read .kube/config but could write one whose exec credential plugin runs
// a command on the host at the next kubectl; likewise .npmrc (a registry
// of the attacker's for the next npm install), .envrc (run by direnv),
// .docker/config.json (a credential helper), server.key, id_rsa and
// terraform.tfstate. Every default secret is now refused for writing too.
func TestAttackS18DefaultDenyWriteCoversTheDefaultSecrets(t *testing.T) {
	secrets := []string{
		".env.production", "app/.env.local", ".env.keys", "server.key", "certs/client.p12", "certs/client.pfx",
		"keys/deploy.ppk", "home/.ssh/id_rsa", "home/.ssh/id_ed25519_sk", ".git-credentials", ".netrc", ".pgpass",
		".pypirc", ".aws/credentials", ".npmrc", ".envrc", ".docker/config.json", ".kube/config",
		"infra/terraform.tfstate", "infra/terraform.tfstate.backup",
	}
	dir := t.TempDir()
	for _, f := range secrets {
		p := filepath.Join(dir, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("original"), 0o600))
	}
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	for _, f := range secrets {
		err := ws.WriteFile(f, []byte("tampered"), 0o600)
		if assert.ErrorIs(t, err, sandbox.ErrDeniedByRule, "%s was written", f) {
			assert.ErrorContains(t, err, "deny-write", f)
		}
		b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		assert.Equal(t, "original", string(b), f)
		assert.ErrorIs(t, ws.Remove(f), sandbox.ErrDeniedByRule, "%s was removed", f)
	}
	for _, f := range []string{"notes.txt", ".kube/notes.md"} {
		require.NoError(t, ws.WriteFile(f, []byte("x"), 0o644))
		assert.ErrorIs(t, ws.Rename(f, ".env.production"), sandbox.ErrDeniedByRule, "renamed %s over .env.production", f)
	}
	// Ordinary files beside them are written as before.
	for _, f := range []string{"main.go", "keys.go", "package.json", ".envoy.yaml", "certs/key.md", "infra/main.tf", ".kube/config.yaml"} {
		assert.NoError(t, ws.WriteFile(f, []byte("x"), 0o644), f)
	}
	for _, g := range sandbox.DefaultSecrets {
		assert.Contains(t, sandbox.DefaultDenyWrite, g, "a default secret that may be written")
	}
}
