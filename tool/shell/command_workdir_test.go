package shell_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// A fixed Workdir outside the engine's workspace (builtin's git tools pass
// the Workspace's Dir) failed every call with filesystem_policy; New
// refuses it. The same directory spelled through a symlink runs.
func TestCommandWorkdirOutsideTheEngineWorkspaceIsRefused(t *testing.T) {
	engineDir, other := t.TempDir(), t.TempDir()
	spec := tool.Spec{Name: "pwd_tool", Description: "Print the directory"}
	_, err := shell.New(spec, processEngine(t, engineDir), shell.Config{Argv: []string{"pwd"}, Workdir: other})
	require.Error(t, err, "a workdir outside the engine's workspace was accepted")
	assert.Contains(t, err.Error(), "workdir")
	assert.Contains(t, err.Error(), "outside the engine's workspace")

	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(engineDir, link))
	require.NoError(t, os.Mkdir(filepath.Join(engineDir, "sub"), 0o755))
	c, err := shell.New(spec, processEngine(t, link), shell.Config{Argv: []string{"pwd"}, Workdir: filepath.Join(engineDir, "sub")})
	require.NoError(t, err)
	res, err := c.Run(context.Background(), tool.Call{ID: "1", Name: "pwd_tool", Args: []byte(`{}`)})
	require.NoError(t, err)
	assert.Contains(t, res.Text(), "sub")
}
