package shell_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// Attack: find does not end its expression's start at "--". GNU and BSD
// find take "--" as the end of their own few options (-H, -L, -P, -D,
// -O), then read starting points up to the first argument that starts
// with "-" (or is "!", "(", ")" or ","), which begins the expression. So
// a "list the files under a directory" tool written as the package doc
// says, with "--" before the operand, find -- {dir} -type f, given dir
// "-delete" ran find -- -delete -type f, which deleted every file under
// the working directory (real find, real files). The template's "--" made
// the value pass as an operand. A value that starts an argument after a
// find is now refused when it starts with "-", "--" or not, except as the
// value of a primary that takes one (find -- . -name {pattern}).
func TestAttackS30FindDoubleDashIsNoEndOfTheExpression(t *testing.T) {
	if _, err := exec.LookPath("find"); err != nil {
		t.Skip("find is not installed")
	}
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "logs"), 0o755))
	for _, f := range []string{"keep.txt", "logs/a.log"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644))
	}
	sb := processEngine(t, dir)
	list, err := shell.NewCommand("list", "List the files under a directory", sb,
		[]string{"find", "--", "{dirs}", "-type", "f"},
		shell.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"dirs":{"type":"array","items":{"type":"string"}}},"required":["dirs"]}`)))
	require.NoError(t, err)
	for _, dirs := range [][]string{{"-delete"}, {"logs", "-delete"}, {"-fprint"}, {"-exec"}} {
		_, err := list.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"dirs": dirs})})
		if assert.Error(t, err, "%q ran", dirs) {
			assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
			assert.Contains(t, err.Error(), "expression")
		}
		assert.FileExists(t, filepath.Join(dir, "keep.txt"), "%q deleted the workspace's files", dirs)
		assert.FileExists(t, filepath.Join(dir, "logs/a.log"), "%q deleted the workspace's files", dirs)
	}

	// Guard: directories run, "-delete" written as a file name is one, and
	// a primary's value after "--" may start with "-".
	res, err := list.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"dirs": []string{"logs", "./-delete"}})})
	require.Error(t, err, "./-delete does not exist")
	assert.Equal(t, tool.CodeNonZeroExit, tool.AsError(err).Code, "%v", err)
	assert.Contains(t, res.Text(), "logs/a.log")
	named, err := shell.NewCommand("named", "Find files by name", sb, []string{"find", "--", ".", "-name", "{pattern}"})
	require.NoError(t, err)
	_, err = named.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"pattern": "-x*"})})
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(dir, "keep.txt"))
	assert.FileExists(t, filepath.Join(dir, "logs/a.log"))
}
