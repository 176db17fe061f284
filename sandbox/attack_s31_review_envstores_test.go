package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Review of 020c3dc, beside TMPDIR: as TMPDIR moves the Kerberos ticket
// cache's directory, the program's own variables move a tool's login out
// of the home, to where the engines, which hide the home's stores
// (DefaultHomeSecrets) and the temporary directories, did not look:
// KRB5CCNAME=FILE:/srv/..., a service account's key in
// GOOGLE_APPLICATION_CREDENTIALS, KUBECONFIG (a list), DOCKER_CONFIG's
// config.json, GH_CONFIG_DIR, GNUPGHOME. A command run as the program's
// user read every one.
func TestAttackS31ReviewStoresNamedByTheProgramsVariables(t *testing.T) {
	requireRoot(t) // it plants files owned by another user
	base, err := os.MkdirTemp("/srv", "toolbelt-test-envstores-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	require.NoError(t, os.Chmod(base, 0o755))
	plant := func(rel string) string {
		p := filepath.Join(base, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, []byte("ENVSECRET of "+p+"\n"), 0o600))
		for q := p; q != base; q = filepath.Dir(q) {
			require.NoError(t, os.Chown(q, s30User, s30User))
		}
		return p
	}
	files := []string{
		plant("krb/krb5cc_23456"), plant("gcp/sa.json"), plant("kube/a.conf"), plant("kube/b.conf"),
		plant("docker/config.json"), plant("gh/hosts.yml"), plant("gnupg/private-keys-v1.d/k.key"),
	}
	t.Setenv("KRB5CCNAME", "FILE:"+files[0])
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", files[1])
	t.Setenv("KUBECONFIG", files[2]+":"+files[3])
	t.Setenv("DOCKER_CONFIG", filepath.Dir(files[4]))
	t.Setenv("GH_CONFIG_DIR", filepath.Dir(files[5]))
	t.Setenv("GNUPGHOME", filepath.Join(base, "gnupg"))
	// A file kept beside a store stays readable: only the store is hidden.
	beside := filepath.Join(base, "docker", "notes.txt")
	require.NoError(t, os.WriteFile(beside, []byte("BESIDE\n"), 0o644))

	ws := workspaceDir(t)
	script := `for f in "$@"; do cat "$f"; done; echo end`
	args := append(append([]string(nil), files...), beside)
	o := sh(t, engine(t, EngineProcess, WithUser(s30User, s30User)), script, args...)
	require.Equal(t, len(files), strings.Count(string(o.Stdout), "ENVSECRET"), "the control did not read every file of %v", files)
	for _, name := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			o := sh(t, engine(t, name, WithWorkspace(ws), WithUser(s30User, s30User)), script, args...)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run: %s", o.Stderr)
			n := strings.Count(string(o.Stdout), "ENVSECRET")
			assert.Zero(t, n, "a command read %d of the %d stores the program's variables name:\n%s", n, len(files), o.Stdout)
			assert.Contains(t, string(o.Stdout), "BESIDE\n", "a file beside a store was hidden: %s", o.Stderr)
		})
	}
	// WithHomeSecrets still shows them.
	o = sh(t, engine(t, EngineBwrap, WithWorkspace(ws), WithUser(s30User, s30User), WithHomeSecrets()), script, files...)
	assert.Equal(t, len(files), strings.Count(string(o.Stdout), "ENVSECRET"), "WithHomeSecrets hid a store: %s", o.Stderr)
}
