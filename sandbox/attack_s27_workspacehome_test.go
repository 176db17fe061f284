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

// A workspace that holds a home directory (an agent given /home, or the
// user's own home) let the file tools read what the commands' masks hide:
// DefaultSecrets names .aws/credentials and .kube/config, not
// .config/gh/hosts.yml, .aws/config's siblings or a shell history, which
// DefaultHomeSecrets masks for commands. Seen failing first: every read and
// write below was allowed.
func TestAttackS27FileToolsReadTheHomeStoresOfAHomeInTheWorkspace(t *testing.T) {
	top := t.TempDir()
	home := filepath.Join(top, "users", "dev home [1]") // a name with glob syntax in it
	t.Setenv("HOME", home)
	files := map[string]string{
		".config/gh/hosts.yml":  "oauth_token: gho_x",
		".aws/sso/cache/x.json": "{}",
		".bash_history":         "export TOKEN=x",
		".claude.json":          "{}",
		".ssh/known_hosts":      "host ssh-ed25519 AAAA",
		"notes/todo.md":         "ordinary",
		".config/app/conf.toml": "ordinary",
	}
	for name, body := range files {
		p := filepath.Join(home, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	}
	for _, dir := range []string{top, home} {
		ws, err := sandbox.OpenWorkspace(dir)
		require.NoError(t, err)
		t.Cleanup(func() { ws.Close() })
		rel, err := filepath.Rel(dir, home)
		require.NoError(t, err)
		at := func(name string) string { return filepath.ToSlash(filepath.Join(rel, name)) }
		for _, name := range []string{".config/gh/hosts.yml", ".aws/sso/cache/x.json", ".bash_history", ".claude.json"} {
			_, err := ws.ReadFile(at(name))
			assert.True(t, errors.Is(err, sandbox.ErrDeniedByRule), "workspace %s: %s read: %v", dir, at(name), err)
		}
		_, err = ws.ReadDir(at(".config/gh"))
		assert.True(t, errors.Is(err, sandbox.ErrDeniedByRule), "workspace %s: the store itself is listed: %v", dir, err)
		err = ws.WriteFile(at(".ssh/authorized_keys"), []byte("ssh-ed25519 AAAA attacker"), 0o600)
		assert.True(t, errors.Is(err, sandbox.ErrDeniedByRule), "workspace %s: a key was planted: %v", dir, err)
		for _, name := range []string{"notes/todo.md", ".config/app/conf.toml"} {
			_, err := ws.ReadFile(at(name))
			assert.NoError(t, err, "workspace %s: %s is no credential store", dir, at(name))
		}
	}
	// WithSecrets with none reads secrets as other files, the home's too.
	ws, err := sandbox.OpenWorkspace(home, sandbox.WithSecrets())
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	_, err = ws.ReadFile(".config/gh/hosts.yml")
	assert.NoError(t, err)
}

// A project's own directories named like a home's stores (.claude, .kube)
// stay readable where no home is: only a home's stores are refused.
func TestS27AProjectsOwnDotDirectoriesAreNoHomeStores(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	for _, name := range []string{".claude/settings.json", ".kube/notes.md", "app/.config/gh/README"} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o600))
	}
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	for _, name := range []string{".claude/settings.json", ".kube/notes.md", "app/.config/gh/README"} {
		_, err := ws.ReadFile(name)
		assert.NoError(t, err, name)
	}
}
