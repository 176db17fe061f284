package executor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/registry/loader"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// Attack: a bash tool registered through a `type: go` definition (the
// loader's wrapper over a Funcs entry) hid its Assess method, so an
// executor without an approval extension ran "rm -rf sub" unasked.
func TestDangerousCallThroughGoDefinitionIsRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	sb, err := sandbox.New("process", sandbox.WithWorkspace(dir))
	require.NoError(t, err)
	bash, err := shell.NewBash(sb, ws)
	require.NoError(t, err)
	ld := &loader.Loader{Funcs: map[string]tool.Tool{"bash": bash}}
	reg := registry.New()
	require.NoError(t, ld.Load(reg, strings.NewReader(`
tools:
  - name: run_shell
    description: Run a shell command
    type: go
    implementation: {function: bash}
`), "tools.yaml"))
	res, _ := executor.MustNew(reg).Execute(context.Background(), tool.Call{ID: "c", Name: "run_shell", Args: json.RawMessage(`{"command":"rm -rf sub"}`)})
	require.NotNil(t, res.Error, "rm -rf ran unasked through a go definition")
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
	assert.DirExists(t, filepath.Join(dir, "sub"), "rm -rf ran unasked through a go definition")
}
