package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bwrap and gvisor show the host's root read-only, and a program not run
// by root runs their commands as its own user: `cat ~/.ssh/id_rsa`,
// `~/.aws/credentials` and `~/.netrc` printed the developer's keys to the
// model (seen failing first: each was read, here made world-readable so
// that root's test, whose commands run as 65534, reads them as the
// developer's own user would). The home directory's credential stores
// (DefaultHomeSecrets) are now empty in the sandbox; WithHomeSecrets gives
// them back, which shows the test can fail.
func TestAttackS21CommandReadsHomeCredentials(t *testing.T) {
	requireRoot(t)     // hostDir is on the root, which the sandbox shows, only for root
	home := hostDir(t) // on the host's root, which the sandbox shows (its /tmp is its own)
	for p, data := range map[string]string{".ssh/id_rsa": "HOMESECRET-SSH", ".aws/credentials": "HOMESECRET-AWS", ".netrc": "HOMESECRET-NETRC", "project/main.go": "package main"} {
		require.NoError(t, os.MkdirAll(filepath.Join(home, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(home, p), []byte(data), 0o644))
	}
	t.Setenv("HOME", home)
	ws := filepath.Join(home, "project")
	require.NoError(t, os.Chmod(ws, 0o777))
	const read = `cat "$1/.ssh/id_rsa" "$1/.aws/credentials" "$1/.netrc"; ls "$1/.ssh" | wc -l; cat main.go`
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			o := sh(t, engine(t, name, WithWorkspace(ws)), read, home)
			assert.False(t, strings.Contains(string(o.Stdout), "HOMESECRET"), "a command read the home's credentials: %s", o.Stdout)
			assert.Contains(t, string(o.Stdout), "package main", "the workspace inside the home stays readable")
			o = sh(t, engine(t, name, WithWorkspace(ws), WithHomeSecrets()), read, home)
			assert.Contains(t, string(o.Stdout), "HOMESECRET-SSH", "WithHomeSecrets gives them back")
		})
	}
}
