package sandbox

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attacks of the fourteenth session on the host side: what a sandboxed
// command leaves in the workspace, against what the host does with it
// afterwards.

// A command that leaves many directories deep in the workspace does not
// make each later tracked run walk their paths again for every one of
// them. The walk opened each directory by its path from the workspace's
// root, one component at a time (os.Root), so its cost was the entries
// times their depth: 30,000 directories 250 levels down took a tracked
// run of true 29 s here (two snapshots), for every run after, and
// MaxTrackedEntries allows three times as many. It opens each directory
// from its parent's descriptor now: the deep tree costs what a flat one
// of as many directories does (with 20,000 of each, under -race: 6.5 s of
// CPU against 0.6 s before, 0.52 s against 0.44 s after). Measured in CPU
// time of this process, which the load of other processes does not
// inflate.
func TestAttackS14DeepDirectoriesSlowEveryTrackedRun(t *testing.T) {
	ws := workspaceDir(t)
	sb := engine(t, EngineBwrap, WithWorkspace(ws), WithLimits(Limits{Timeout: 2 * time.Minute}))
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c",
		`mkdir -p "deep/$1" flat && (cd "deep/$1" && seq 10000 | sed 's/^/x/' | xargs mkdir) && cd flat && seq 10000 | sed 's/^/x/' | xargs mkdir`,
		"sh", strings.Repeat("d/", 250)}})
	require.NoError(t, err, "%s", out.Stderr)

	cost := func(dir string) time.Duration {
		best := time.Duration(-1)
		for range 2 {
			before := cpuTime(t)
			snap, err := snapshot(filepath.Join(ws, dir))
			took := cpuTime(t) - before
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(snap), 10000)
			if best < 0 || took < best {
				best = took
			}
		}
		return best
	}
	flat, deep := cost("flat"), cost("deep")
	t.Logf("CPU time of a snapshot: flat %v, 250 levels deep %v", flat, deep)
	// About 1x once fixed, 10-25x before.
	assert.Less(t, deep, 4*flat+time.Second, "the snapshot of the deep tree cost %v, the flat one %v", deep, flat)
}

// A command that changes the mode of the workspace itself is told to have
// changed it. On the idmapped workspace of bwrap and gVisor the command is
// its owner: "chmod 777 ." made a root-owned 0700 workspace writable by
// every local user on the host (who may then plant a .git/config whose
// hooks root's next git command runs), and the outcome listed no change,
// since the walk left the workspace's own entry out. It is listed now as
// "modified .".
func TestAttackS14WorkspaceModeChangeIsTracked(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the idmapped workspace is made by root")
	}
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			require.NoError(t, os.Chmod(ws, 0o700))
			sb := engine(t, name, WithWorkspace(ws))
			out, err := sb.Run(context.Background(), Spec{Argv: []string{"chmod", "777", "."}, TrackChanges: true})
			require.NoError(t, err, "%s", out.Stderr)
			fi, err := os.Stat(ws)
			require.NoError(t, err)
			require.Equal(t, fs.FileMode(0o777), fi.Mode().Perm(), "the command changed the workspace's mode on the host")
			require.Empty(t, out.ChangesUntracked)
			assert.Equal(t, []Change{{".", ChangeModified}}, out.Changes, "the workspace's own mode changed, and no change was listed")
		})
	}
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
