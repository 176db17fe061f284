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

// A process whose working directory was reached through a symlink ($PWD
// is ROOT/link/project, link -> real) knows it by that name, and so do
// the patterns its operators write. 419d48e judged a relative path only
// under getcwd's name (ROOT/real/project), so a forbidden pattern that
// names the directory as $PWD does, with a wildcard where the link is
// (which the pattern's load-time resolution cannot see through), refused
// the absolute path but let "secrets/key" be read; aace84e refused both.
func TestAttackRelativePathUnderTheWorkingDirectorysOwnName(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	project := filepath.Join(root, "real", "project")
	require.NoError(t, os.MkdirAll(filepath.Join(project, "secrets"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(project, "secrets", "key"), []byte(sshSecret+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(project, "readme.md"), []byte("readme\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")))
	t.Chdir(filepath.Join(root, "link", "project")) // sets $PWD to that name
	read := tool.Func("read_any", "Read a file", func(_ context.Context, a readAnyArgs) (string, error) {
		b, err := os.ReadFile(a.Path)
		return string(b), err
	})
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["$ROOT/l*/project/secrets/**"]}`), policy.WithEnv(func(k string) (string, bool) {
		return map[string]string{"ROOT": root}[k], k == "ROOT"
	}))
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(read))
	ex := executor.MustNew(reg, executor.WithExtensions(p))

	res := call(t, ex, "read_any", map[string]any{"path": "readme.md"})
	require.Nil(t, res.Error, "%v", res.Error)
	for _, path := range []string{filepath.Join(root, "link", "project", "secrets", "key"), "secrets/key", "./secrets/../secrets/key"} {
		b, _ := json.Marshal(map[string]string{"path": path})
		res = callRaw(t, ex, "read_any", string(b))
		assert.NotContains(t, resultText(res), sshSecret, "%s", path)
		if assert.NotNil(t, res.Error, "read allowed: %s", path) {
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
		}
	}
}
