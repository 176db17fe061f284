package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// TestAttackS17SearchWalkIsBoundedWhateverTheGlob: search_files stops
// after a number of files (DefaultMaxFiles), but counted only the files
// its glob picked. A glob that picks nothing ("*.go" in a tree of .txt, or
// of empty directories) walked the whole tree: 100,000 entries took 1.5 s
// and answered "no matches in 0 files", not truncated, and a command that
// fills a workspace with millions of entries makes each call run until
// its deadline. Every entry the walk looks at must count (here the cap is
// 100 files, so the walk may look at 10 times as many entries).
func TestAttackS17SearchWalkIsBoundedWhateverTheGlob(t *testing.T) {
	for _, tree := range []string{"files", "directories"} {
		t.Run(tree, func(t *testing.T) {
			dir := t.TempDir()
			for i := range 1500 {
				p := filepath.Join(dir, fmt.Sprintf("d%d", i/100), fmt.Sprintf("e%d", i))
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				if tree == "files" {
					require.NoError(t, os.WriteFile(p+".txt", nil, 0o644))
				} else {
					require.NoError(t, os.Mkdir(p, 0o755))
				}
			}
			ws, err := sandbox.OpenWorkspace(dir)
			require.NoError(t, err)
			defer ws.Close()
			c := newConfig(nil)
			c.maxFiles = 100
			res, err := searchFiles(context.Background(), ws, c, searchIn{Pattern: "x", Glob: "*.go"})
			require.NoError(t, err)
			text := fmt.Sprint(res.Content)
			assert.True(t, res.Metadata[MetaTruncated].(bool), "the walk of 1,516 entries was not cut: %s", text)
			assert.Contains(t, text, "entries", "the answer says the walk stopped, and why")
		})
	}
}
