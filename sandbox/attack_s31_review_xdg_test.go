package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Review of 020c3dc, beside TMPDIR: the program's other XDG base
// directories move the home's credential stores. With XDG_CONFIG_HOME
// (XDG_DATA_HOME, XDG_CACHE_HOME) naming a directory outside the home,
// gh keeps its token in $XDG_CONFIG_HOME/gh/hosts.yml, gcloud in
// $XDG_CONFIG_HOME/gcloud, the keyrings in $XDG_DATA_HOME/keyrings, the
// Hugging Face token in $XDG_CACHE_HOME/huggingface/token; the engines
// hid ~/.config/gh and the rest, only under the home, so a command run as
// that user read each store there.
func TestAttackS31ReviewStoresUnderRelocatedXDGDirs(t *testing.T) {
	requireRoot(t) // it plants files owned by another user
	base, err := os.MkdirTemp("/srv", "toolbelt-test-xdg-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	require.NoError(t, os.Chmod(base, 0o755))
	var files []string
	for _, s := range []struct{ env, dir, file string }{
		{"XDG_CONFIG_HOME", "config", "gh/hosts.yml"},
		{"XDG_DATA_HOME", "data", "keyrings/login.keyring"},
		{"XDG_CACHE_HOME", "cache", "huggingface/token"},
	} {
		p := filepath.Join(base, s.dir, s.file)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, []byte("XDGSECRET of "+p+"\n"), 0o600))
		for q := p; q != base; q = filepath.Dir(q) {
			require.NoError(t, os.Chown(q, s30User, s30User))
		}
		t.Setenv(s.env, filepath.Join(base, s.dir))
		files = append(files, p)
	}
	ws := workspaceDir(t)
	script := `for f in "$@"; do cat "$f"; done; echo end`
	o := sh(t, engine(t, EngineProcess, WithUser(s30User, s30User)), script, files...)
	require.Equal(t, len(files), strings.Count(string(o.Stdout), "XDGSECRET"), "the control did not read every file of %v", files)
	for _, name := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			o := sh(t, engine(t, name, WithWorkspace(ws), WithUser(s30User, s30User)), script, files...)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run: %s", o.Stderr)
			n := strings.Count(string(o.Stdout), "XDGSECRET")
			assert.Zero(t, n, "a command read %d of the %d stores under the program's XDG directories:\n%s", n, len(files), o.Stdout)
		})
	}
	// WithHomeSecrets still shows them.
	o = sh(t, engine(t, EngineBwrap, WithWorkspace(ws), WithUser(s30User, s30User), WithHomeSecrets()), script, files...)
	assert.Equal(t, len(files), strings.Count(string(o.Stdout), "XDGSECRET"), "WithHomeSecrets hid a store: %s", o.Stderr)
}
