package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// TestAttackS30WriteFileFollowsSymlinksOut: write_file cleans the path
// ("/"+path) so ".." cannot climb out, but a symlink in the workspace (one
// a build, a checkout or another tool left there) points anywhere. The
// tool must not write through it to a file outside the workspace.
func TestAttackS30WriteFileFollowsSymlinksOut(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "lib")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "profile"), filepath.Join(dir, "notes.md")))

	reg := registry.New()
	require.NoError(t, reg.Register(writeFile(dir)))
	ex := executor.MustNew(reg)
	for _, path := range []string{"lib/app.go", "notes.md", "../" + filepath.Base(outside) + "/x", filepath.Join(outside, "abs")} {
		args, err := json.Marshal(WriteArgs{Path: path, Content: "pwned\n"})
		require.NoError(t, err)
		res, _ := ex.Execute(context.Background(), tool.Call{ID: path, Name: "write_file", Args: args})
		assert.False(t, res.OK(), "%s: %s", path, res.Text())
	}
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing was written outside the workspace")
}
