package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Where systemd-resolved runs (Ubuntu, Fedora), /etc/resolv.conf is a link
// to /run/systemd/resolve/stub-resolv.conf. bwrap mounts a fresh /run, and
// gvisor does too since TestAttackS28CommandReadsContainerSecretsUnderRun,
// so with the network on the link led nowhere and no name resolved (seen
// failing first on bwrap: cat found no file). The file the link leads to is
// now bound read-only at its place when the network is on. The host's own
// /etc/resolv.conf is left alone: the test points the engines at a link of
// its own (resolvConf) to a file it makes under /run.
func TestS28ResolverFileUnderTheFreshRun(t *testing.T) {
	requireRoot(t) // it writes under the host's /run
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	dir := filepath.Join("/run", "toolbelt-s28-"+hex.EncodeToString(b), "resolve")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(dir)) })
	target := filepath.Join(dir, "stub-resolv.conf")
	require.NoError(t, os.WriteFile(target, []byte("nameserver 127.0.0.53\n# S28-RESOLVER\n"), 0o644))
	link := filepath.Join(t.TempDir(), "resolv.conf")
	require.NoError(t, os.Symlink(target, link))
	old := resolvConf
	resolvConf = link
	t.Cleanup(func() { resolvConf = old })

	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			o := sh(t, engine(t, eng, WithNetwork(true)), `cat "$1"; echo end`, target)
			require.Contains(t, string(o.Stdout), "end", "the command did not run")
			assert.Contains(t, string(o.Stdout), "S28-RESOLVER", "the resolver's file is not in the sandbox with the network on")
			// With the network off there is nothing to resolve: /run stays empty.
			o = sh(t, engine(t, eng), `cat "$1"; echo end`, target)
			require.Contains(t, string(o.Stdout), "end", "the command did not run")
			assert.NotContains(t, string(o.Stdout), "S28-RESOLVER", "the resolver's file is bound with the network off")
		})
	}
}
