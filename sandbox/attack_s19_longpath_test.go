package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
// the approval gate's Evaluate 16 s, against a bound of 1 s, a loose one
// for a loaded machine under -race: linear, it takes a few milliseconds).
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
		start := time.Now()
		got, err := ws.Resolve(c.name)
		took := time.Since(start)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%.40q", c.name)
		assert.Less(t, took, time.Second, "%.40q: one 128 KiB path", c.name)
	}
}
