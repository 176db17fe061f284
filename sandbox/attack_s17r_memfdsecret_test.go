//go:build linux && amd64

package sandbox

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memfdSecretHoldAttack keeps memory in a memfd_secret(2) file (system
// call 447 on amd64): each window of $2 MiB is mapped, filled and unmapped
// again, and its pages stay with the file, so the address space (and the
// locked memory the mapping counts in) never holds more than one window.
// It tries $3 windows and prints how many MiB it held.
const memfdSecretHoldAttack = `import ctypes, mmap, os, sys
per, n = int(sys.argv[1]), int(sys.argv[2])
held = 0
try:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(447, 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "memfd_secret")
    os.ftruncate(fd, (per * n) << 20)
    for i in range(n):
        m = mmap.mmap(fd, per << 20, offset=(i * per) << 20)
        m.write(b"x" * (per << 20))
        m.close()
        held += per
except OSError as e:
    print("refused:", e, file=sys.stderr)
print(held)
`

// TestAttackS17RMemfdSecretOutsideTheAddressSpace: 5adef6c refused
// memfd_create on bwrap and gVisor because a memory file's pages count
// against no address space; memfd_secret makes such a file too.
func TestAttackS17RMemfdSecretOutsideTheAddressSpace(t *testing.T) {
	needPython(t)
	const limitMiB, per, n = 128, 4, 96 // 384 MiB tried, 4 MiB mapped at a time
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name, WithWorkspace(workspaceDir(t)))
			out, err := sb.Run(context.Background(), Spec{
				Argv:   []string{"python3", "-c", memfdSecretHoldAttack, strconv.Itoa(per), strconv.Itoa(n)},
				Limits: Limits{Timeout: 60 * time.Second, Memory: limitMiB << 20},
			})
			require.NoError(t, err, "%s: %s %s", name, out.Stdout, out.Stderr)
			held, err := strconv.Atoi(strings.TrimSpace(string(out.Stdout)))
			require.NoError(t, err, "%s: stdout %q stderr %q", name, out.Stdout, out.Stderr)
			t.Logf("%s: held %d MiB under a %d MiB limit (%s)", name, held, limitMiB, strings.TrimSpace(string(out.Stderr)))
			assert.LessOrEqual(t, held, limitMiB, "%s: memfd_secret held %d MiB outside the address space under a %d MiB limit", name, held, limitMiB)
		})
	}
}
