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

// Attack: the memory limit bounds every tmpfs a command can write
// (TestAttackTmpfsOutgrowsMemoryLimit: /tmp, /var/tmp, /run, /dev/shm),
// because a tmpfs's pages count against no process's address space. /dev
// is a tmpfs too: bwrap's --dev makes one, owned by the command's user and
// unbounded (half the host's memory). Under a 128 MiB limit a bwrap
// command kept 240 MiB in /dev/fill1..4, as any user it runs as (seen
// succeeding first). gVisor's /dev is root's, mode 0755: a command run as
// 65534 cannot write it. (Run WithUser(0, 0), a gVisor command owns it and
// kept as much there; runsc ignores a size on /dev, and "ro" makes
// /dev/null read-only in gVisor: not fixed here, see docs/sandbox.md.)
func TestAttackS19DevTmpfsOutgrowsMemoryLimit(t *testing.T) {
	const limit = 128 << 20
	const fill = `for i in 1 2 3 4; do head -c 62914560 /dev/zero > /dev/fill$i 2>/dev/null || break; done
echo "$(cat /dev/fill* 2>/dev/null | wc -c)"
rm -f /dev/fill* 2>/dev/null
echo x > /dev/null && echo x > /dev/shm/kept && cat /dev/shm/kept >&2`
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{EngineBwrap, nil},
		{EngineBwrap, []Option{WithUser(0, 0)}},
		{EngineGVisor, nil},
	} {
		t.Run(tc.name+"/"+strconv.Itoa(len(tc.opts)), func(t *testing.T) {
			if len(tc.opts) > 0 {
				requireRoot(t)
			}
			sb := engine(t, tc.name, append(tc.opts, WithWorkspace(workspaceDir(t)))...)
			out, err := sb.Run(context.Background(), Spec{
				Argv:   []string{"sh", "-c", fill},
				Limits: Limits{Timeout: 60 * time.Second, Memory: limit},
			})
			require.NoError(t, err, "%s", out.Stderr)
			n, err := strconv.ParseInt(strings.TrimSpace(string(out.Stdout)), 10, 64)
			require.NoError(t, err, "%s", out.Stdout)
			assert.LessOrEqual(t, n, int64(limit), "/dev held more than the memory limit")
			assert.True(t, strings.HasSuffix(string(out.Stderr), "x\n"), "/dev/null and /dev/shm must stay writable: %s", out.Stderr)
		})
	}
}
