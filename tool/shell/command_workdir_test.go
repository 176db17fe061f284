package shell_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
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

// An argv tool's command line was judged as if run in the workspace root,
// whatever its fixed Workdir: "tee -- config" run in .git writes
// .git/config, and was judged as writing a plain file. It is judged as run
// there, as the bash tool judges a line in its workdir.
func TestCommandIsJudgedInItsWorkdir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	sb := processEngine(t, dir)
	tee := func(workdir string) *shell.Command {
		c, err := shell.New(tool.Spec{Name: "save", Description: "Save a file", InputSchema: []byte(`{"type":"object","properties":{"file":{"type":"string"}}}`)},
			sb, shell.Config{Argv: []string{"tee", "--", "{file}"}, Workdir: workdir})
		require.NoError(t, err)
		return c
	}
	inGit := tee(".git").Assess([]byte(`{"file":"config"}`))
	inRoot := tee("").Assess([]byte(`{"file":".git/config"}`))
	plain := tee("").Assess([]byte(`{"file":"config"}`))
	require.Greater(t, inRoot.Level, plain.Level, "writing .git/config is judged worse than a plain file: %v / %v", inRoot, plain)
	assert.Equal(t, inRoot.Level, inGit.Level, "tee config in .git is tee .git/config: %v", inGit)
	abs := tee(filepath.Join(dir, ".git")).Assess([]byte(`{"file":"config"}`))
	assert.Equal(t, inRoot.Level, abs.Level, "an absolute Workdir inside the workspace too: %v", abs)
}

// Workdir names where the command runs, on the host (policy.Workdirer): the
// governance policy judges a relative path argument from there.
func TestCommandNamesItsWorkdir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	spec := tool.Spec{Name: "show", Description: "Show a file"}
	for workdir, want := range map[string]string{"": dir, "sub": filepath.Join(dir, "sub"), filepath.Join(dir, "sub"): filepath.Join(dir, "sub")} {
		c, err := shell.New(spec, processEngine(t, dir), shell.Config{Argv: []string{"cat"}, Workdir: workdir})
		require.NoError(t, err)
		var w policy.Workdirer = c
		assert.Equal(t, want, w.Workdir(nil), "Workdir %q", workdir)
	}
	noWorkspace, err := sandbox.New("process")
	require.NoError(t, err)
	c, err := shell.New(spec, noWorkspace, shell.Config{Argv: []string{"cat"}})
	require.NoError(t, err)
	assert.Equal(t, "/", c.Workdir(nil), "an engine without a workspace runs in /")
}

// End to end: forbidden_paths ["secrets/**"], and an argv tool that runs in
// secrets asked for "key". Judged in the policy's base directory, "key" was
// a file of the project root and the tool printed secrets/key.
func TestAttackPolicyJudgesACommandsPathInItsWorkdir(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "secrets"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte("s3cr3t-key-material\n"), 0o600))
	c, err := shell.New(tool.Spec{Name: "show_secret_dir", Description: "Show a file", Risk: tool.RiskLow,
		InputSchema: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		processEngine(t, dir), shell.Config{Argv: []string{"cat", "--", "{path}"}, Workdir: "secrets"})
	require.NoError(t, err)
	p, err := policy.Parse([]byte("version: 1\nglobal:\n  forbidden_paths: [\"secrets/**\"]\ntools:\n  show_secret_dir:\n    path_fields: [path]\n"), policy.WithBaseDir(dir))
	require.NoError(t, err)
	reg := registry.New()
	reg.MustRegister(c)
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "1", Name: "show_secret_dir", Args: []byte(`{"path":"key"}`)})
	assert.NotContains(t, res.Text(), "s3cr3t")
	require.NotNil(t, res.Error, "the secret was read")
	assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
}
