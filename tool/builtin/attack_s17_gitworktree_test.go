package builtin_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackS17GitToolsStayInTheWorkspacesWorkTree: the repository's
// configuration is the model's to write (bash in a sandbox writes .git,
// which only the file tools protect), and core.worktree names the work
// tree git compares the index with. With core.worktree pointing out of
// the workspace and an index entry for a file there (git update-index
// --cacheinfo needs no file), git_diff showed that host file's content as
// the entry's change, and git_status named what is there: the workspace's
// rules judge names as if they were in the workspace, where nothing hides
// them. The git tools must take the workspace as the work tree.
func TestAttackS17GitToolsStayInTheWorkspacesWorkTree(t *testing.T) {
	e := newGitEnv(t)
	out := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(out, "notes.txt"), []byte("HOST-SECRET-42\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(out, "other-host-file.txt"), nil, 0o600))
	cmd := exec.Command("git", "-C", e.dir, "hash-object", "-w", "--stdin")
	cmd.Stdin = strings.NewReader("")
	blob, err := cmd.Output()
	require.NoError(t, err)
	git(t, e.dir, "config", "core.worktree", out)
	git(t, e.dir, "update-index", "--add", "--cacheinfo", "100644,"+strings.TrimSpace(string(blob))+",notes.txt")

	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"git_diff", map[string]any{}},
		{"git_diff", map[string]any{"path": "notes.txt"}},
		{"git_status", map[string]any{}},
	} {
		res := e.call(t, c.tool, c.args)
		b, err := json.Marshal(res)
		require.NoError(t, err)
		text := string(b)
		assert.NotContains(t, text, "HOST-SECRET-42", "%s %v showed a file outside the workspace: %s", c.tool, c.args, text)
		assert.NotContains(t, text, "other-host-file", "%s %v named a file outside the workspace: %s", c.tool, c.args, text)
	}
}
