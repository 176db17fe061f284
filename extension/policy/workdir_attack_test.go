package policy_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// workdirFixture is a project (the engine's workspace and the policy's base
// directory) with secrets/key, an empty sub/ and a link out of it (notes
// -> HOME/.ssh), and argv tools that show a file with a stand-in cat, each
// running in a directory of the project (Config.Workdir): "show_secrets"
// in secrets, "show_sub" in sub. wrap turns each tool into the one
// registered. inWorkspace gives the policy the project as a workspace
// (WithWorkspace) rather than as its base directory.
func workdirFixture(t *testing.T, governance string, wrap func(tool.Tool) tool.Tool, inWorkspace bool) *executor.Executor {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	project, home, bin := filepath.Join(root, "project"), filepath.Join(root, "home"), filepath.Join(root, "bin")
	for _, d := range []string{filepath.Join(project, "secrets"), filepath.Join(project, "sub"), filepath.Join(home, ".ssh"), bin} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	require.NoError(t, os.WriteFile(filepath.Join(project, "secrets", "key"), []byte(sshSecret+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id"), []byte(sshSecret+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(project, "sub", "readme.md"), []byte("readme\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(project, "sub", "notes")))
	cat, err := filepath.EvalSymlinks("/bin/cat")
	require.NoError(t, err)
	require.NoError(t, os.Symlink(cat, filepath.Join(bin, "show")))
	sb, err := sandbox.New("process", sandbox.WithWorkspace(project),
		sandbox.WithLimits(sandbox.Limits{Timeout: 20 * time.Second, OutputBytes: 1 << 20}))
	require.NoError(t, err)
	opt := policy.WithBaseDir(project)
	if inWorkspace {
		ws, err := sandbox.OpenWorkspace(project)
		require.NoError(t, err)
		t.Cleanup(func() { ws.Close() })
		opt = policy.WithWorkspace(ws)
	}
	p, err := policy.Parse([]byte(governance), opt)
	require.NoError(t, err)
	reg := registry.New()
	for name, dir := range map[string]string{"show_secrets": "secrets", "show_sub": "sub"} {
		c, err := shell.New(tool.Spec{Name: name, Description: "Show a file", Risk: tool.RiskLow}, sb,
			shell.Config{Argv: []string{"show", "--", "{path}"}, Workdir: dir}, shell.WithEnv("PATH="+bin, "HOME="+home))
		require.NoError(t, err)
		require.NoError(t, reg.Register(wrap(c)))
	}
	return executor.MustNew(reg, executor.WithExtensions(p))
}

var _ policy.Workdirer = (*shell.Command)(nil)

// wrapped hides a tool behind a wrapper that has only Unwrap, as a tool
// file's go tool does: the policy asks the tool beneath for its Workdir.
type wrapped struct{ tool.Tool }

func (w wrapped) Unwrap() tool.Tool { return w.Tool }

// wrappers are the forms a shell tool is registered in: as tool/shell
// builds it, and behind a wrapper.
var wrappers = map[string]func(tool.Tool) tool.Tool{
	"bare":    func(t tool.Tool) tool.Tool { return t },
	"wrapped": func(t tool.Tool) tool.Tool { return wrapped{t} },
}

// A relative path argument of a tool that runs in a directory of its own
// is opened from there, not from the base directory: show_secrets runs
// "show -- key" in secrets, show_sub "show -- ../secrets/key" and "show --
// notes/id" (notes -> HOME/.ssh) in sub. Judged against the base
// directory, the four read the secret, and allowed_paths ["sub/**"]
// refused readme.md in sub (seen before the policy asked for Workdir, and
// before *shell.Command had it).
func TestAttackRelativePathOfAToolWithAWorkdir(t *testing.T) {
	for _, tc := range []struct {
		governance, tool, path, rule string
	}{
		{`global: {forbidden_paths: ["secrets/**"]}`, "show_secrets", "key", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["secrets/**"]}`, "show_secrets", "./key", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["secrets/**"]}`, "show_sub", "../secrets/key", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["**/.ssh/**"]}`, "show_sub", "notes/id", "global.forbidden_paths"},
		{`global: {allowed_paths: ["sub/**"]}`, "show_sub", "../secrets/key", "global.allowed_paths"},
	} {
		refusedInWorkdir(t, tc.governance, tc.tool, tc.path, tc.rule, false, func(t *testing.T, res *tool.Result) {
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
		})
	}
}

// With the project as the policy's workspace (WithWorkspace), a relative
// path of a tool that names its directory is resolved in the workspace
// from that directory: the same calls are refused, the link out of it by
// paths.resolve, and readme.md in sub still runs. A guard for the
// workspace branch of the change above.
func TestRelativePathOfAToolWithAWorkdirInAWorkspace(t *testing.T) {
	for _, tc := range []struct {
		governance, tool, path, rule string
	}{
		{`global: {forbidden_paths: ["secrets/**"]}`, "show_secrets", "key", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["secrets/**"]}`, "show_sub", "../secrets/key", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["**/.ssh/**"]}`, "show_sub", "notes/id", "paths.resolve"},
		{`global: {allowed_paths: ["sub/**"]}`, "show_sub", "../secrets/key", "global.allowed_paths"},
	} {
		refusedInWorkdir(t, tc.governance, tc.tool, tc.path, tc.rule, true, nil)
	}
}

// refusedInWorkdir checks, for each form of the fixture's tools (wrappers),
// that show_sub still reads readme.md and that toolName refuses path by
// rule without showing the secret; more checks the refusal further.
func refusedInWorkdir(t *testing.T, governance, toolName, path, rule string, inWorkspace bool, more func(*testing.T, *tool.Result)) {
	t.Helper()
	for form, wrap := range wrappers {
		t.Run(form+" "+toolName+" "+path, func(t *testing.T) {
			ex := workdirFixture(t, governance, wrap, inWorkspace)
			res := call(t, ex, "show_sub", map[string]any{"path": "readme.md"})
			require.Nil(t, res.Error, "%v", res.Error)
			assert.Contains(t, res.Text(), "readme")

			res = call(t, ex, toolName, map[string]any{"path": path})
			assert.NotContains(t, resultText(res), sshSecret)
			require.NotNil(t, res.Error, "read allowed: %s", path)
			assert.Equal(t, rule, res.Metadata[policy.MetaRule], "%v", res.Error)
			if more != nil {
				more(t, res)
			}
		})
	}
}
