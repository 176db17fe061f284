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

// The default secrets left out the credential stores that tools keep in a
// project or a home directory a workspace may hold: npm's .npmrc
// (_authToken), direnv's .envrc (exported keys), Docker's config.json
// (registry auths), kubectl's config (bearer tokens, client keys) and
// Terraform's state (every secret a plan touched). A workspace read each
// to the model.
func TestAttackS17DefaultSecretsCoverCredentialStores(t *testing.T) {
	secret := []string{
		".npmrc", "web/.npmrc", ".envrc", "home/.docker/config.json", "home/.kube/config",
		"infra/terraform.tfstate", "infra/terraform.tfstate.backup",
	}
	ordinary := []string{"package.json", "infra/main.tf", "docker/config.json", "kube/config.yaml", "config"}
	dir := t.TempDir()
	for _, f := range append(append([]string{}, secret...), ordinary...) {
		p := filepath.Join(dir, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("token=abc"), 0o644))
	}
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	for _, f := range secret {
		_, err := ws.ReadFile(f)
		assert.True(t, errors.Is(err, sandbox.ErrDeniedByRule), "%s was read (%v)", f, err)
	}
	for _, f := range ordinary {
		_, err := ws.ReadFile(f)
		assert.NoError(t, err, f)
	}
}
