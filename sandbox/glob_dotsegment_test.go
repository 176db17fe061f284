package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attack: a deny, deny-write or secrets glob written like a path, with a
// "./" in front, a "/" at the end, a "//", or a "." or ".." segment. Match
// compares it with clean names ("keys/server.pem"), in which no such
// segment appears, so "./keys/**", "keys/", "keys//*.pem",
// "x/../keys/**" and "**/.env/" named nothing, and OpenWorkspace took them:
// with WithSecrets("./keys/**") the workspace read keys/server.pem, with
// WithDenyWrite("**/.env/") it wrote .env. ValidGlob refuses them now,
// inside a {a,b} alternative too.
func TestAttackPathSpelledGlobIsRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "keys"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "keys", "server.pem"), []byte("PRIVATE"), 0o600))
	for _, g := range []string{"./keys/**", "keys/", "keys//*.pem", "keys/./*.pem", "x/../keys/**", "**/*.pem/", "{./keys,x}/**", "{keys/,x}", ".", `\./keys/**`, `keys/\.\./keys/**`} {
		ws, err := OpenWorkspace(dir, WithSecrets(g))
		if err == nil {
			_, rerr := ws.ReadFile("keys/server.pem")
			t.Errorf("secrets glob %q was taken (reading keys/server.pem: %v)", g, rerr)
			continue
		}
		assert.True(t, errors.Is(err, ErrInvalidPath), "%v", err)
		assert.Contains(t, err.Error(), `"./"`, "%q: the error names the rule", g)
	}
	for _, g := range []string{"**/.env/", "./.env"} {
		ws, err := OpenWorkspace(dir, WithDenyWrite(g))
		if err == nil {
			t.Errorf("deny-write glob %q was taken (writing .env: %v)", g, ws.WriteFile(".env", []byte("X=1"), 0o600))
		}
	}
	for _, p := range []string{"./a", "a/", "a//b", "a/./b", "a/../b", "..", "**/", "a/**/", "{./a,b}", "{a/,b}", "{a,b/.}/c", "/etc//x", "/etc/", `\./a`, `a/\.\./b`} {
		assert.False(t, ValidGlob(p), "%q", p)
	}
	// Not path segments: a "." within a name (escaped too), an alternative
	// that is "." or empty, a bracketed dot in a name, and absolute
	// patterns (the governance policy's), one alternative each.
	for _, p := range []string{"**/.env", `**/\.env`, ".git/**", "a.b/c", "..x/y", "x../y", "*.{pem,}", "{.,x}", ".{a,b}", "[.]x/y", "/etc/**", "{/etc,/usr}/**", "/", "**", "**/*.pem"} {
		assert.True(t, ValidGlob(p), "%q", p)
	}
	for _, g := range DefaultSecrets {
		assert.True(t, ValidGlob(g), "%q", g)
	}
	for _, g := range DefaultDenyWrite {
		assert.True(t, ValidGlob(g), "%q", g)
	}
}
