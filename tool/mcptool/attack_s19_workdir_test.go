package mcptool_test

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
	"github.com/toolbelt-go/toolbelt/tool/mcptool"
)

// Attack: an MCP server a tool file starts with "dir:" runs in that
// directory, and takes a relative path argument from there (the
// reference filesystem server, any server that opens what it is given),
// as /proc/self/cwd is that directory to it. The governance policy judged
// such a path in the agent's base directory: "key" given to a server run
// in secrets was judged as the project's "key", past forbidden
// "secrets/**", and so were "/proc/self/cwd/key" and "../secrets/key" from
// a server run in sub. Seen failing first: every call passed the policy
// (and reached the server). The kind's tool now names its directory to
// the policy (policy.Workdirer), as an argv shell tool does.
func TestAttackS19MCPServerDirIsWherePathsAreJudged(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	project := filepath.Join(root, "project")
	for _, d := range []string{"secrets", "sub"} {
		require.NoError(t, os.MkdirAll(filepath.Join(project, d), 0o700))
	}
	pol, err := policy.Parse([]byte(`
global: {forbidden_paths: ["secrets/**"]}
tools:
  read_in_secrets: {path_fields: [path]}
  read_in_sub: {path_fields: [path]}
`), policy.WithBaseDir(project))
	require.NoError(t, err)
	pool := mcptool.NewPool()
	t.Cleanup(func() { pool.Close() })
	kind := mcptool.Kind(pool)
	reg := registry.New()
	for name, dir := range map[string]string{"read_in_secrets": filepath.Join(project, "secrets"), "read_in_sub": filepath.Join(project, "sub")} {
		impl, err := json.Marshal(mcptool.Impl{Command: "false", Dir: dir, Tool: "read"})
		require.NoError(t, err)
		spec := tool.Spec{Name: name, Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}
		tl, err := kind(spec, impl)
		require.NoError(t, err)
		_, ok := tl.(policy.Workdirer)
		assert.True(t, ok, "the kind's tool names its directory")
		require.NoError(t, reg.Register(tl))
	}
	ex := executor.MustNew(reg, executor.WithExtensions(pol))
	for _, c := range []struct{ tool, path string }{
		{"read_in_secrets", "key"},
		{"read_in_secrets", "./key"},
		{"read_in_secrets", "/proc/self/cwd/key"},
		{"read_in_sub", "../secrets/key"},
	} {
		args, err := json.Marshal(map[string]string{"path": c.path})
		require.NoError(t, err)
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: c.tool, Args: args})
		require.NotNil(t, res)
		require.NotNil(t, res.Error, "%s(%s) passed the policy", c.tool, c.path)
		assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%s(%s): %v", c.tool, c.path, res.Error)
		assert.Equal(t, "global.forbidden_paths", res.Metadata[policy.MetaRule], "%s(%s)", c.tool, c.path)
	}
}
