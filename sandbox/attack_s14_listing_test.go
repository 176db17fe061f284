package sandbox

import (
	"context"
	"io/fs"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A walk of the workspace (list_directory, search_files) does not hold
// every level of a tree of full directories at once. Each directory is
// read whole (sorted) before the walk goes down into it, and each may
// hold 65,536 entries: a command that nested seven such directories made
// one walk hold all seven, 458,745 entries, 133 MB of this process's
// memory, live together (ten, the list_directory maximum, about 190 MB; a
// search_files walk has no depth bound, and each call holds its own). A
// walk now holds at most maxWalkHeld entries of the directories it is
// inside of (38 MB here), and is told ErrTooLarge for a directory past
// that, as for one over maxDirEntries. Five levels here, to keep the test
// short.
func TestAttackS14NestedFullDirectoriesHeldByOneWalk(t *testing.T) {
	dir := workspaceDir(t)
	sb := engine(t, EngineBwrap, WithWorkspace(dir), WithLimits(Limits{Timeout: 2 * time.Minute}))
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c",
		`for l in 1 2 3 4 5; do seq 65535 | sed 's/^/f/' | xargs touch && mkdir 0 && cd 0 || exit 1; done`}})
	require.NoError(t, err, "%s", out.Stderr)
	ws, err := OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()

	live := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	base, peak := live(), uint64(0)
	var tooLarge error
	_, err = ws.WalkHidden(".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			tooLarge = err
			return fs.SkipDir
		}
		if d.IsDir() {
			if l := live(); l > base {
				peak = max(peak, l-base)
			}
		}
		return nil
	})
	require.NoError(t, err)
	t.Logf("live heap at most %d MB over the walk's start", peak>>20)
	// About 38 MB once fixed (two levels), 95 MB before.
	assert.Less(t, peak, uint64(70<<20), "one walk held %d MB of directory entries", peak>>20)
	assert.ErrorIs(t, tooLarge, ErrTooLarge)
}
