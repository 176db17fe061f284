package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attack: a deny or secrets glob with "**" inside a segment ("**.pem",
// "secrets**"). doublestar reads such a "**" as "*": "**.pem" names only
// the top directory's .pem files and "secrets**" nothing below secrets, so
// OpenWorkspace took WithSecrets("**.pem") and the workspace then read
// keys/server.pem. The governance policy refuses such a pattern ("** must
// be a whole path segment"); ValidGlob, the workspace's check, now does
// too, so the one dialect has one rule for what is well formed.
func TestAttackGlobstarInsideASegmentIsRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "keys"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "keys", "server.pem"), []byte("PRIVATE"), 0o600))
	for _, opt := range []WorkspaceOption{WithSecrets("**.pem"), WithDeny("**.pem"), WithDeny("keys**"), WithAllow("docs/**.md")} {
		ws, err := OpenWorkspace(dir, opt)
		if err == nil {
			_, rerr := ws.ReadFile("keys/server.pem")
			t.Errorf("a glob with ** inside a segment was taken (reading keys/server.pem: %v)", rerr)
			continue
		}
		assert.True(t, errors.Is(err, ErrInvalidPath), "%v", err)
		assert.Contains(t, err.Error(), "whole path segment")
	}
	for _, p := range []string{"**.pem", "secrets**", "a/**b/c", "a**/b", "x/***"} {
		assert.False(t, ValidGlob(p), "%q", p)
	}
	for _, p := range []string{"**", "**/*.pem", "a/**/b", "secrets/**", "**/x/**", `\*\*.pem`, "[*][*].pem", "{a,b}/**"} {
		assert.True(t, ValidGlob(p), "%q", p)
	}
}
