//go:build linux

package sandbox

import (
	"context"
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
