//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A landlock command run WithUser(0, 0) kept uid 0 (without capabilities)
// and so owned every root-owned file of the host: Landlock does not restrict
// metadata, and chmod needs no capability from a file's owner. It made a
// root-only (0600) host file outside the workspace mode 0666, after which
// any local user could write it (/etc/passwd, /root/.ssh/authorized_keys);
// setfacl would have done the same. The engine now refuses uid 0. (Seen
// succeeding first.)
func TestAttackLandlockRootChmodsHostFiles(t *testing.T) {
	requireRoot(t)
	landlockEngine(t) // skips (or fails in CI) without Landlock
	victim := filepath.Join(hostDir(t), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("root-only"), 0o600))
	for _, opts := range [][]Option{{WithUser(0, 0)}, {WithUser(0, 65534)}, {WithUser(0, 0), WithNetwork(true)}} {
		sb, err := New(EngineLandlock, append(opts, WithWorkspace(workspaceDir(t)))...)
		if err == nil {
			out := sh(t, sb, `chmod 666 "$1"; setfacl -m u:65534:rw "$1" 2>/dev/null; echo end`, victim)
			require.Contains(t, string(out.Stdout), "end", "the attack did not run")
		}
		fi, serr := os.Stat(victim)
		require.NoError(t, serr)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the command changed a root-owned host file's mode")
		require.NoError(t, os.Chmod(victim, 0o600))
		// The refusal names the option, the rule and the fix.
		require.ErrorIs(t, err, ErrCreateFailed)
		require.ErrorIs(t, err, ErrInvalidSpec)
		assert.ErrorContains(t, err, "WithUser(0, ")
		assert.ErrorContains(t, err, "chmod")
		assert.ErrorContains(t, err, "bwrap or gvisor")
	}
	// Another uid is still accepted.
	sb := landlockEngine(t, WithWorkspace(workspaceDir(t)), WithUser(1234, 1234))
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"id", "-u"}})
	require.NoError(t, err)
	assert.Equal(t, "1234\n", string(out.Stdout))
}

// fchmodat2(2) (Linux 6.6) sets a mode like fchmodat, so every engine's
// filter refuses the setuid and setgid bits through it too. This runsc
// answers it ENOSYS (its kernel lacks the call) and skips a rule naming a
// call it does not know; a runsc that has it applies the rule, which the
// bundle's filter must so carry.
func TestFchmodat2CannotSetID(t *testing.T) {
	requireRoot(t)
	needPython(t)
	const script = `touch f && python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for mode in (0o4755, 0o2755, 0o755):
    r = libc.syscall(452, -100, b"f", mode, 0)  # fchmodat2(AT_FDCWD, ...), 452 everywhere
    print(oct(mode), r, os.strerror(ctypes.get_errno()) if r else "ok")
'; echo end`
	for _, name := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			out := sh(t, engine(t, name, WithWorkspace(ws)), script)
			require.Contains(t, string(out.Stdout), "end", "the attack did not run")
			fi, err := os.Stat(filepath.Join(ws, "f"))
			require.NoError(t, err)
			assert.Zero(t, fi.Mode()&(os.ModeSetuid|os.ModeSetgid), "%v", fi.Mode())
			if name != EngineGVisor { // the host kernel has fchmodat2
				assert.Contains(t, string(out.Stdout), "0o4755 -1 Operation not permitted")
				assert.Contains(t, string(out.Stdout), "0o2755 -1 Operation not permitted")
				assert.Contains(t, string(out.Stdout), "0o755 0 ok", "a plain mode must still be settable")
			}
		})
	}
	var got []string
	for _, sc := range gvisorSeccomp().Syscalls {
		if sc.Names[0] == "fchmodat2" {
			require.Len(t, sc.Args, 1)
			assert.Equal(t, uint(2), sc.Args[0].Index, "the mode is fchmodat2's third argument")
			got = append(got, fmt.Sprintf("%#o", sc.Args[0].Value))
		}
	}
	assert.Equal(t, []string{"04000", "02000"}, got, "gVisor's filter refuses both bits through fchmodat2")
}
