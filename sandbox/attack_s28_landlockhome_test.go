package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The landlock engine let a command read the home directory's credential
// stores ([DefaultHomeSecrets]), which bwrap and gvisor mask: Landlock
// cannot take a right away beneath a directory it grants, and it granted
// read beneath every entry of the root. Run by a developer (the command is
// their user) or, as here, by root with a HOME readable by 65534, cat
// printed ~/.ssh's key, ~/.aws/credentials, gh's token and a shell history,
// also through a symbolic link in the home that leads to one (seen
// succeeding first). The engine now grants read beneath every entry but
// those, going down only the directories that hold one; the home's other
// files stay readable and every directory listable.
func TestAttackS28LandlockReadsHomeCredentials(t *testing.T) {
	requireRoot(t)     // hostDir is on the root, readable by 65534, only for root
	home := hostDir(t) // 0755, files 0644: only Landlock stands in the way
	stores := []string{".ssh/id_ed25519", ".aws/credentials", ".config/gh/hosts.yml", ".bash_history", ".docker/config.json"}
	for _, p := range stores {
		require.NoError(t, os.MkdirAll(filepath.Join(home, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(home, p), []byte("HOMESECRET "+p+"\n"), 0o644))
	}
	// Ordinary files beside them, which commands read (a git config, a
	// tool's settings beside gh's).
	for _, p := range []string{".gitconfig", ".config/git/ignore", ".docker/features.json"} {
		require.NoError(t, os.MkdirAll(filepath.Join(home, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(home, p), []byte("ORDINARY "+p+"\n"), 0o644))
	}
	require.NoError(t, os.Symlink(".ssh/id_ed25519", filepath.Join(home, "key-link")))
	require.NoError(t, os.Symlink(".config/gh", filepath.Join(home, "gh-link")))
	ws := filepath.Join(home, "project")
	require.NoError(t, os.Mkdir(ws, 0o777))
	require.NoError(t, os.Chmod(ws, 0o777)) // past the umask: 65534 writes it
	t.Setenv("HOME", home)

	script := `cd "$1" && shift && for p in "$@"; do cat "$p"; done; ls -a . .config .ssh >/dev/null && echo listed; echo end`
	args := append([]string{home}, stores...)
	args = append(args, "key-link", "gh-link/hosts.yml", ".gitconfig", ".config/git/ignore", ".docker/features.json")
	o := sh(t, landlockEngine(t, WithWorkspace(ws)), script, args...)
	out := string(o.Stdout)
	require.Contains(t, out, "end", "the attack did not run")
	assert.NotContains(t, out, "HOMESECRET", "a landlock command read a credential store of the home")
	for _, p := range []string{".gitconfig", ".config/git/ignore", ".docker/features.json"} {
		assert.Contains(t, out, "ORDINARY "+p, "a landlock command could not read an ordinary file of the home")
	}
	assert.Contains(t, out, "listed", "a landlock command could not list the home")

	// WithHomeSecrets gives them back, as on bwrap and gvisor.
	o = sh(t, landlockEngine(t, WithWorkspace(ws), WithHomeSecrets()), script, args...)
	assert.Contains(t, string(o.Stdout), "HOMESECRET .ssh/id_ed25519", "WithHomeSecrets did not give the stores back")
}
