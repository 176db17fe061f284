package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reopenExe is runc's CVE-2019-5736 against a sandbox: the command runs a
// host binary, keeps a descriptor of it (/proc/self/exe) across an exec of
// another program (so the binary is no longer busy, and ETXTBSY no longer
// guards it), and reopens it for writing through /proc/self/fd, the magic
// link that reaches the file on its own mount, not through the path the
// sandbox judges. Nothing is written: it prints "opened" or "refused".
const reopenExe = `"$1" -c 'exec 3</proc/self/exe; exec sh -c "if true 4<>/proc/self/fd/3; then echo opened; else echo refused; fi"'`

// exeReopened runs reopenExe through sb with a host binary of root's, mode
// 0777 so that no file mode stands in the way: only the sandbox can. It
// reports whether the binary was opened for writing; the binary is a copy
// of /bin/sh in a directory of the test's, and the test writes nothing.
func exeReopened(t *testing.T, sb Sandbox) bool {
	t.Helper()
	dir := hostDir(t)
	b, err := os.ReadFile("/bin/sh")
	require.NoError(t, err)
	bin := filepath.Join(dir, "sh-copy")
	require.NoError(t, os.WriteFile(bin, b, 0o777))
	require.NoError(t, os.Chmod(bin, 0o777))
	out := sh(t, sb, reopenExe, bin)
	got := strings.TrimSpace(string(out.Stdout))
	require.Contains(t, []string{"opened", "refused"}, got, "the attack did not run: %s", out.Stderr)
	after, err := os.ReadFile(bin)
	require.NoError(t, err)
	require.True(t, bytes.Equal(b, after), "the host binary changed")
	return got == "opened"
}

// Attack (runc's CVE-2019-5736, which made a container's root overwrite
// the host's runc): a command as uid 0 of bwrap or gvisor (WithUser(0, 0),
// which keeps root's uid) reopens a host binary for writing through
// /proc/self/fd. Both refuse it on their read-only root, as the default user
// is refused (the engine table's row); this was not tested before.
func TestAttackS21RootReopensHostBinaryForWriting(t *testing.T) {
	requireRoot(t)
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			assert.False(t, exeReopened(t, engine(t, name, WithUser(0, 0))), "a host binary was opened for writing")
		})
	}
}
