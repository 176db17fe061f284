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
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/registry/loader"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// An executor without an approval extension ran dangerous commands that
// nobody was asked about: a bash tool's "rm -rf sub" deleted the
// directory. A call its tool judges dangerous (approval.Assessor: the
// bash tool's classifier) needs a person, and none could be asked: it is
// refused, as a tool requiring approval is. Safe and warning commands
// still run, and so does a tool whose fixed risk is high (delete_file):
// registering it without an approval extension was the developer's choice.
func TestDangerousCallWithoutApprovalExtensionIsRefused(t *testing.T) {
	dir, ws, sb := dangerousWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("x"), 0o644))
	bash, err := shell.NewBash(sb, ws)
	require.NoError(t, err)
	reg := registry.New()
	reg.MustRegister(bash, builtin.DeleteFile(ws))
	run := func(ex *executor.Executor, name string, args any) *tool.Result {
		raw, err := json.Marshal(args)
		require.NoError(t, err)
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: raw})
		return res
	}
	noop := extension.Func("noop", 0, func(next extension.Handler) extension.Handler { return next })
	for _, ex := range []*executor.Executor{executor.MustNew(reg), executor.MustNew(reg, executor.WithExtensions(noop))} {
		res := run(ex, "bash", map[string]string{"command": "rm -rf sub"})
		require.NotNil(t, res.Error, "rm -rf ran unasked")
		assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
		assert.Contains(t, res.Error.Message, `tool "bash" was not run: this call is judged dangerous (`)
		assert.ErrorContains(t, res.Error.Err, "no approval extension is installed")
		assert.DirExists(t, filepath.Join(dir, "sub"), "rm -rf ran unasked")

		// What is not judged dangerous runs: a safe command, a warning one.
		res = run(ex, "bash", map[string]string{"command": "ls sub"})
		require.Nil(t, res.Error)
		assert.Contains(t, res.Text(), "deep")
		res = run(ex, "bash", map[string]string{"command": "mkdir -p made"})
		require.Nil(t, res.Error)
		assert.DirExists(t, filepath.Join(dir, "made"))
	}

	// With an approval extension installed (by its name, approvalgate's),
	// the executor leaves the decision to it.
	res := run(executor.MustNew(reg), "delete_file", map[string]string{"path": "keep.txt"})
	require.Nil(t, res.Error)
	assert.NoFileExists(t, filepath.Join(dir, "keep.txt"))
	appr := extension.Func("approval", extension.PriorityApproval, func(next extension.Handler) extension.Handler { return next })
	res = run(executor.MustNew(reg, executor.WithExtensions(appr)), "bash", map[string]string{"command": "rm -rf sub"})
	require.Nil(t, res.Error)
	assert.NoDirExists(t, filepath.Join(dir, "sub"))
}

// Attack: a bash tool registered through a `type: go` definition (the
// loader's wrapper over a Funcs entry) hid its Assess method, so an
// executor without an approval extension ran "rm -rf sub" unasked.
func TestDangerousCallThroughGoDefinitionIsRefused(t *testing.T) {
	dir, ws, sb := dangerousWorkspace(t)
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

// Attack: the unasked check judged an extension's rewritten arguments
// before they were validated again, so before their schema defaults were
// filled. A template whose placeholder has a default could not expand the
// rewritten arguments (left to Run), then ran with the default filled in:
// "rm -rf sub" ran unasked.
func TestDangerousCallAfterRewriteIsJudgedWithDefaults(t *testing.T) {
	dir, _, sb := dangerousWorkspace(t)
	rm, err := shell.NewCommand("clean", "remove a directory", sb, []string{"sh", "-c", "{script}"},
		shell.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"script":{"type":"string","default":"rm -rf sub"}}}`)))
	require.NoError(t, err)
	reg := registry.New()
	reg.MustRegister(rm)
	drop := extension.Func("drop_path", 0, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			req.Call.Args = json.RawMessage(`{}`)
			return next(ctx, req)
		}
	})
	res, _ := executor.MustNew(reg, executor.WithExtensions(drop)).Execute(context.Background(),
		tool.Call{ID: "c", Name: "clean", Args: json.RawMessage(`{"script":"ls"}`)})
	require.NotNil(t, res.Error, "rm -rf ran unasked")
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
	assert.DirExists(t, filepath.Join(dir, "sub"), "rm -rf ran unasked")
}

// dangerousWorkspace is a workspace holding sub/deep, and a process
// engine working in it.
func dangerousWorkspace(t *testing.T) (string, *sandbox.Workspace, sandbox.Sandbox) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	sb, err := sandbox.New("process", sandbox.WithWorkspace(dir))
	require.NoError(t, err)
	return dir, ws, sb
}
