package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attacks by a command that controls what runs, with the host process root.

// A root process's workspace is bound through an idmapped mount on which
// root's files appear as the command's (65534): what the command creates is
// owned by root on the host. Setting the setuid bit on such a file (chmod,
// or a mode given at creation) would leave a setuid-root program in the
// workspace that any local user who can reach it runs as root.
func TestAttackIdmappedSetuidRoot(t *testing.T) {
	requireRoot(t)
	dir, err := os.MkdirTemp(hostDir(t), "toolbelt-ws-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	dir, err = evalDir(dir)
	require.NoError(t, err)
	sb := engine(t, EngineBwrap, WithWorkspace(dir))
	script := `cp /bin/true a; chmod 4755 a; chmod u+s a; chmod 2755 a
cp /bin/true b; perl -e 'chmod 04755, "b"'
perl -MFcntl -e 'sysopen(F, "c", O_CREAT|O_WRONLY, 04755) or die $!'
perl -e 'mknod("d", 0100000|04755, 0)' 2>/dev/null
install -m 4755 /bin/true e
mkdir -m 2775 f
ls -ln`
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", script}, Limits: Limits{Timeout: 30 * time.Second}})
	require.NotNil(t, out, "%v", err)
	t.Logf("stdout: %s stderr: %s", out.Stdout, out.Stderr)
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		var st syscall.Stat_t
		require.NoError(t, syscall.Lstat(filepath.Join(dir, e.Name()), &st))
		if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			continue // a setgid directory only passes its group on
		}
		assert.Zero(t, st.Mode&(syscall.S_ISUID|syscall.S_ISGID),
			"%s: owner %d:%d mode %#o on the host", e.Name(), st.Uid, st.Gid, st.Mode&0o7777)
	}
}
