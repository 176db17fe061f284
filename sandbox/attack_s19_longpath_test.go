package sandbox_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// Attack: the workspace resolves every path a file tool is given (and the
// approval rules resolve every path argument they judge) by walking it a
// component at a time, and joined each component to the path walked so
// far with path.Join, which copies and cleans the whole path: quadratic
// in the path's length. A model's 128 KiB path of one-letter names under
// a missing directory (the executor lets 1 MiB of arguments through) took
// about 15 s of CPU per resolution. Seen failing first (about 15 s, and
// the approval gate's Evaluate 16 s, against a bound of 1 s: linear, it
// takes a few milliseconds). Asserted without a clock, which failed a CI
// run on a loaded machine: each join copied the path walked so far, about
// 4 GiB allocated for this path, against a bound of 256 MiB (linear, the
// resolution allocates a few copies of the path).
func TestAttackS19LongPathResolvesInLinearTime(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src", "d"), 0o755))
	require.NoError(t, os.Symlink("d", filepath.Join(dir, "src", "link")))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	tail := strings.Repeat("a/", 64<<10) + "b"
	for _, c := range []struct{ name, want string }{
		{"src/missing/" + tail, "src/missing/" + tail},
		{"src/link/" + tail, "src/d/" + tail},              // a link on the way, then a long missing tail
		{"src/link/../link/x/../" + tail, "src/d/" + tail}, // ".." in the walk
		{"src/missing/" + tail + "/../../c", "src/missing/" + tail[:len(tail)-4] + "/c"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := ws.Resolve(c.name)
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%.40q", c.name)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<20), "%.40q: bytes allocated to resolve one 128 KiB path", c.name)
	}
}
