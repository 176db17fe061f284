package sandbox_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

func denyWriteTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for f, data := range map[string]string{"go.lock": "v1", "deps/npm.lock": "v1", "config/prod/db.yaml": "host: db",
		"notes.txt": "n", ".env": "OLD=1", "keys/server.pem": "old pem"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	return dir
}

func hostFile(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	require.NoError(t, err)
	return string(b)
}

// WithDenyWrite replaces DefaultDenyWrite: the new globs are refused for
// writing (and the error names the glob), the defaults it dropped are
// written like any other file, and reading is not affected.
func TestWithDenyWriteReplacesTheDefaults(t *testing.T) {
	dir := denyWriteTree(t)
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithDenyWrite("**/*.lock", "config/prod/**"))
	require.NoError(t, err)
	defer ws.Close()

	for _, c := range []struct{ path, rule string }{
		{"go.lock", `deny-write "**/*.lock"`},
		{"deps/npm.lock", `deny-write "**/*.lock"`},
		{"deps/new.lock", `deny-write "**/*.lock"`},
		{"config/prod/db.yaml", `deny-write "config/prod/**"`},
		{"./deps/../go.lock", `deny-write "**/*.lock"`},
	} {
		err := ws.WriteFile(c.path, []byte("tampered"), 0o644)
		require.Error(t, err, "%s was written", c.path)
		assert.ErrorIs(t, err, sandbox.ErrDeniedByRule, c.path)
		assert.ErrorContains(t, err, c.rule, c.path)
	}
	assert.Equal(t, "v1", hostFile(t, dir, "go.lock"))
	assert.Equal(t, "v1", hostFile(t, dir, "deps/npm.lock"))
	assert.Equal(t, "host: db", hostFile(t, dir, "config/prod/db.yaml"))
	assert.NoFileExists(t, filepath.Join(dir, "deps/new.lock"))

	// The other writes are judged by the same globs.
	err = ws.Remove("go.lock")
	assert.ErrorContains(t, err, `deny-write "**/*.lock"`)
	err = ws.Rename("notes.txt", "deps/notes.lock")
	assert.ErrorContains(t, err, `deny-write "**/*.lock"`)
	err = ws.Rename("go.lock", "go.sum")
	assert.ErrorContains(t, err, `deny-write "**/*.lock"`)
	err = ws.MkdirAll("config/prod/extra", 0o755)
	assert.ErrorContains(t, err, `deny-write "config/prod/**"`)
	assert.FileExists(t, filepath.Join(dir, "go.lock"))
	assert.FileExists(t, filepath.Join(dir, "notes.txt"))
	assert.NoDirExists(t, filepath.Join(dir, "config/prod/extra"))

	// Only writing: the files are read as before.
	b, err := ws.ReadFile("go.lock")
	require.NoError(t, err)
	assert.Equal(t, "v1", string(b))

	// The dropped defaults: .env and PEM files are written (still not read:
	// that is DefaultSecrets, which WithDenyWrite leaves alone).
	require.NoError(t, ws.WriteFile(".env", []byte("NEW=2"), 0o600))
	require.NoError(t, ws.WriteFile("keys/server.pem", []byte("new pem"), 0o600))
	require.NoError(t, ws.MkdirAll("app", 0o755))
	require.NoError(t, ws.WriteFile("app/.env", []byte("APP=1"), 0o600))
	assert.Equal(t, "NEW=2", hostFile(t, dir, ".env"))
	assert.Equal(t, "new pem", hostFile(t, dir, "keys/server.pem"))
	assert.Equal(t, "APP=1", hostFile(t, dir, "app/.env"))
	_, err = ws.ReadFile(".env")
	assert.ErrorContains(t, err, "secret")
	// Version-control directories are protected apart from the globs.
	err = ws.WriteFile(".git/hooks/pre-commit", []byte("#!/bin/sh"), 0o755)
	assert.ErrorIs(t, err, sandbox.ErrProtected)
}

// Passed along with DefaultDenyWrite the globs extend the defaults; with no
// globs at all nothing is refused by a deny-write rule.
func TestWithDenyWriteExtendsOrEmpties(t *testing.T) {
	dir := denyWriteTree(t)
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithDenyWrite(slices.Concat(sandbox.DefaultDenyWrite, []string{"**/*.lock"})...))
	require.NoError(t, err)
	defer ws.Close()
	for path, rule := range map[string]string{".env": `deny-write "**/.env"`, "keys/server.pem": `deny-write "**/*.pem"`, "go.lock": `deny-write "**/*.lock"`} {
		err := ws.WriteFile(path, []byte("x"), 0o644)
		assert.ErrorIs(t, err, sandbox.ErrDeniedByRule, path)
		assert.ErrorContains(t, err, rule, path)
	}
	assert.Equal(t, "OLD=1", hostFile(t, dir, ".env"))
	require.NoError(t, ws.WriteFile("notes.txt", []byte("fine"), 0o644))

	none, err := sandbox.OpenWorkspace(dir, sandbox.WithDenyWrite())
	require.NoError(t, err)
	defer none.Close()
	for _, path := range []string{".env", "keys/server.pem", "go.lock", "config/prod/db.yaml"} {
		require.NoError(t, none.WriteFile(path, []byte("written"), 0o644), path)
		assert.Equal(t, "written", hostFile(t, dir, path))
	}

	_, err = sandbox.OpenWorkspace(dir, sandbox.WithDenyWrite("/etc/**"))
	assert.ErrorContains(t, err, "WithDenyWrite")
	assert.ErrorIs(t, err, sandbox.ErrInvalidPath)
}
