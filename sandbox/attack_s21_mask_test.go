package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Masked lists the topmost paths the hide and deny rules name, sorted, and
// nothing inside a masked directory; engines refuse a mask outside the
// workspace.
func TestWorkspaceMaskedListsTopmostHiddenPaths(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"secrets/a/key", "secrets/b", "src/main.go", "src/certs/server.pem", "deny/me.txt"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644))
	}
	hide := func(rel, _ string) string {
		if rel == "secrets" || strings.HasSuffix(rel, ".pem") {
			return "rule"
		}
		return ""
	}
	ws, err := OpenWorkspace(dir, WithHide(hide), WithDeny("deny/**")) // deny/** names deny itself too
	require.NoError(t, err)
	defer ws.Close()
	got, err := ws.Masked()
	require.NoError(t, err)
	assert.Equal(t, []string{"deny", "secrets", "src/certs/server.pem"}, got)

	plain, err := OpenWorkspace(dir)
	require.NoError(t, err)
	defer plain.Close()
	got, err = plain.Masked()
	require.NoError(t, err)
	assert.Empty(t, got, "a workspace without hide or deny rules masks nothing")

	sb := engine(t, EngineBwrap, WithWorkspace(dir))
	_, err = sb.Run(context.Background(), Spec{Argv: []string{"true"}, Mask: []string{"../etc"}})
	assert.ErrorIs(t, err, ErrInvalidSpec)
	assert.ErrorContains(t, err, "not inside the workspace")
}
