package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nestedUsernsRemount makes a user namespace of its own (where the command
// is root, with every capability over it) and a mount namespace in it, and
// there tries to make the read-only host root writable (remounting it, and
// bind-mounting the target's directory writable over itself) before
// writing the file $1. A kernel that locks the flags of mounts inherited
// from a more privileged namespace refuses each remount.
const nestedUsernsRemount = `unshare -Urm --propagation unchanged sh -c '
id -u
mount -o remount,rw / ; echo "remount $?"
mount -o remount,bind,rw / ; echo "remount bind $?"
d=$(dirname "$1")
mount --bind "$d" "$d" && mount -o remount,bind,rw "$d" ; echo "bind $?"
echo pwned > "$1" ; echo "write $?"
' sh "$1"
echo "unshare $?"`

// TestAttackS17ENestedUsernsRemount: no engine's command makes a host file
// outside its workspace writable from a user namespace of its own.
func TestAttackS17ENestedUsernsRemount(t *testing.T) {
	requireRoot(t)
	for _, name := range Engines() {
		if name == EngineProcess {
			continue // the host is writable to it anyway
		}
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name, WithWorkspace(workspaceDir(t)))
			dir := hostDir(t)
			require.NoError(t, os.Chmod(dir, 0o777))
			marker := filepath.Join(dir, "marker")
			require.NoError(t, os.WriteFile(marker, []byte("host\n"), 0o666))
			out, err := sb.Run(context.Background(), Spec{
				Argv:   []string{"sh", "-c", nestedUsernsRemount, "sh", marker},
				Limits: Limits{Timeout: 60 * time.Second},
			})
			require.NotNil(t, out, "%v", err)
			t.Logf("%s: %s\n%s", name, out.Stdout, out.Stderr)
			b, err := os.ReadFile(marker)
			require.NoError(t, err)
			assert.Equal(t, "host\n", string(b), "%s: the host file was written", name)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "%s: a file was made in the host directory", name)
		})
	}
}
