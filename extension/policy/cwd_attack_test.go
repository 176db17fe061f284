package policy_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

type readAnyArgs struct {
	Path string `json:"path" toolbelt:"path"`
}

// cwdFixture is a process whose working directory is a project holding
// symlinks out of it (notes -> HOME/.ssh, priv -> a directory an absolute
// pattern names) and into a forbidden directory of its own (s ->
// secrets), and an executor with a Go tool that reads a path as Go tools
// do: relative to the process's working directory. No WithBaseDir, no
// workspace: the policy knows only what the call names.
func cwdFixture(t *testing.T, governance string) (ex *executor.Executor, root string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	project := filepath.Join(root, "project")
	for _, d := range []string{filepath.Join(project, "secrets"), filepath.Join(root, "home", ".ssh"), filepath.Join(root, "private")} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	for _, f := range []string{filepath.Join(root, "home", ".ssh", "id"), filepath.Join(root, "private", "key"), filepath.Join(project, "secrets", "key")} {
		require.NoError(t, os.WriteFile(f, []byte(sshSecret+"\n"), 0o600))
	}
	require.NoError(t, os.WriteFile(filepath.Join(project, "readme.md"), []byte("readme\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(root, "home", ".ssh"), filepath.Join(project, "notes")))
	require.NoError(t, os.Symlink("../private", filepath.Join(project, "priv")))
	require.NoError(t, os.Symlink("secrets", filepath.Join(project, "s")))
	t.Chdir(project)
	read := tool.Func("read_any", "Read a file", func(_ context.Context, a readAnyArgs) (string, error) {
		b, err := os.ReadFile(a.Path)
		return string(b), err
	})
	p, err := policy.Parse([]byte(governance), policy.WithEnv(func(k string) (string, bool) {
		return map[string]string{"ROOT": root}[k], k == "ROOT"
	}))
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(read))
	return executor.MustNew(reg, executor.WithExtensions(p)), root
}

// A Go tool opens a relative path from the process's working directory,
// through the symlinks there. Without WithBaseDir or a workspace the
// policy matched such a path as written, so "notes/id" (notes ->
// HOME/.ssh) passed "**/.ssh/**", "priv/key" passed "$ROOT/private/**",
// "s/key" (s -> secrets) passed "secrets/**", and allowed_paths ["**"]
// let a link lead out of the directory: each read the secret.
func TestAttackRelativePathThroughASymlinkInTheWorkingDirectory(t *testing.T) {
	for _, tc := range []struct {
		governance, path, rule string
	}{
		{`global: {forbidden_paths: ["**/.ssh/**"]}`, "notes/id", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["**/.ssh/**"]}`, "./notes/./id", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["$ROOT/private/**"]}`, "priv/key", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["secrets/**"]}`, "s/key", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["$ROOT/project/secrets/**"]}`, "secrets/key", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["$ROOT/project/secrets/**"]}`, "s/key", "global.forbidden_paths"},
		{`global: {allowed_paths: ["$ROOT/project/**"]}`, "notes/id", "global.allowed_paths"},
		{`global: {allowed_paths: ["**"]}`, "notes/id", "global.allowed_paths"},
		{`global: {allowed_paths: ["**"]}`, "priv/key", "global.allowed_paths"},
	} {
		t.Run(tc.governance+" "+tc.path, func(t *testing.T) {
			ex, _ := cwdFixture(t, tc.governance)
			res := call(t, ex, "read_any", map[string]any{"path": "readme.md"})
			require.Nil(t, res.Error, "%v", res.Error)
			assert.Contains(t, res.Text(), "readme")

			b, _ := json.Marshal(map[string]string{"path": tc.path})
			res = callRaw(t, ex, "read_any", string(b))
			assert.NotContains(t, resultText(res), sshSecret)
			require.NotNil(t, res.Error, "read allowed: %s", tc.path)
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
			assert.Contains(t, res.Metadata[policy.MetaRule], tc.rule)
		})
	}
}

// A working directory that was removed cannot be named (getcwd fails), so
// where a relative path leads cannot be judged: it is refused, not
// matched as written (which let it past every symlink check).
func TestRelativePathRefusedWhenTheWorkingDirectoryCannotBeNamed(t *testing.T) {
	ex, _ := cwdFixture(t, "version: 1\nglobal:\n  forbidden_paths: [\"**/.ssh/**\"]\n")
	gone := t.TempDir()
	t.Chdir(gone)
	require.NoError(t, os.Remove(gone))
	res := call(t, ex, "read_any", map[string]any{"path": "notes/id"})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeFilesystemPolicy, res.Error.Code, "%v", res.Error)
	assert.Contains(t, res.Error.Message, "working directory cannot be named")
	assert.Equal(t, "paths.resolve", res.Metadata[policy.MetaRule])
}
