package builtin_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// TestAttackS29SearchSizeCapCannotBeTurnedOff: every other cap of the
// catalog keeps its default when given zero or a negative number, but
// WithMaxSearchFileSize(0) (a deployment's unset setting) turned the
// search's file size cap off: search_files read every file it walked
// whole into memory before looking at it, and a command can make a file
// of any size (a sparse one of hundreds of GiB with truncate), whose read
// runs the whole process out of memory, which is fatal. Here a 16 MiB
// file: with the cap off it was read and searched (16 MiB and more
// allocated); it must be skipped as over DefaultMaxSearchBytes, for zero
// and for a negative size alike. Counted, not timed.
func TestAttackS29SearchSizeCapCannotBeTurnedOff(t *testing.T) {
	for _, size := range []int64{0, -1} {
		e := newEnv(t)
		line := strings.Repeat("a", 1023) + "\n"
		require.NoError(t, os.WriteFile(filepath.Join(e.dir, "big.txt"), []byte(strings.Repeat(line, 16<<10)), 0o644))
		search := builtin.SearchFiles(e.ws, builtin.WithMaxSearchFileSize(size))
		args, err := json.Marshal(map[string]any{"pattern": "zzz"})
		require.NoError(t, err)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := search.Run(context.Background(), tool.Call{Name: "search_files", Args: args})
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		var out builtin.SearchResult
		require.NoError(t, json.Unmarshal(res.Output, &out))
		assert.Equal(t, 0, out.FilesSearched, "size %d: the 16 MiB file was searched", size)
		assert.Equal(t, 1, out.FilesSkipped, "size %d", size)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<20), "size %d: bytes allocated by one search", size)
	}
}
