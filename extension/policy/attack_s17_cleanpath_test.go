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

// A path with ".." after a symlink leads two places: where the kernel
// takes it (the ".." applied to the link's target) and where a tool that
// cleans it first takes it (os.ReadFile(filepath.Clean(p)),
// filepath.Join(dir, p), Node's path.resolve: the ".." drops the link).
// With out -> ROOT/elsewhere/deep and notes -> HOME/.ssh in the project,
// "out/../notes/id" is ROOT/elsewhere/notes/id to the kernel, harmless,
// but HOME/.ssh/id to read_clean. The policy judged only the kernel's
// form, so read_clean read the key past "**/.ssh/**", past an absolute
// pattern on HOME, and out of allowed_paths on the project; with
// WithBaseDir as well, where the tool joins the path to that directory.
func TestAttackS17CleanedPathThroughASymlinkIsJudged(t *testing.T) {
	for _, tc := range []struct {
		governance, path, rule string
		baseDir                bool
	}{
		{governance: `global: {forbidden_paths: ["**/.ssh/**"]}`, path: "out/../notes/id", rule: "global.forbidden_paths"},
		{governance: `global: {forbidden_paths: ["**/.ssh/**"]}`, path: "./out/./../notes/id", rule: "global.forbidden_paths"},
		{governance: `global: {forbidden_paths: ["**/.ssh/**"]}`, path: "out/../out/../notes/id", rule: "global.forbidden_paths"},
		{governance: `global: {forbidden_paths: ["**/.ssh/**"]}`, path: "$ROOT/project/out/../notes/id", rule: "global.forbidden_paths"},
		{governance: `global: {forbidden_paths: ["$ROOT/home/**"]}`, path: "out/../notes/id", rule: "global.forbidden_paths"},
		{governance: `global: {allowed_paths: ["$ROOT/project/**", "$ROOT/elsewhere/**"]}`, path: "out/../notes/id", rule: "global.allowed_paths"},
		{governance: `global: {forbidden_paths: ["**/.ssh/**"]}`, path: "out/../notes/id", rule: "global.forbidden_paths", baseDir: true},
		{governance: `global: {forbidden_paths: ["$ROOT/home/**"]}`, path: "out/../notes/id", rule: "global.forbidden_paths", baseDir: true},
		{governance: `tools: {read_clean: {forbidden_paths: ["**/.ssh/**"]}}`, path: "out/../notes/id", rule: "tools.read_clean.forbidden_paths"},
	} {
		name := tc.governance + " " + tc.path
		if tc.baseDir {
			name += " base dir"
		}
		t.Run(name, func(t *testing.T) {
			ex, root := cleanPathFixture(t, tc.governance, tc.baseDir)
			// The kernel's form reads the harmless file; only the
			// cleaned one reaches the key.
			got, err := os.ReadFile(root + "/project/out/../notes/id")
			require.NoError(t, err)
			require.Equal(t, "harmless\n", string(got))

			res := call(t, ex, "read_clean", map[string]any{"path": "out/file"})
			require.Nil(t, res.Error, "%v", res.Error)
			assert.Contains(t, res.Text(), "deep file")

			p := tc.path
			if after, ok := cutRoot(p); ok {
				p = root + "/project" + after
			}
			b, _ := json.Marshal(map[string]string{"path": p})
			res = callRaw(t, ex, "read_clean", string(b))
			assert.NotContains(t, resultText(res), sshSecret)
			require.NotNil(t, res.Error, "read allowed: %s", p)
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
			assert.Equal(t, tc.rule, res.Metadata[policy.MetaRule])
		})
	}
}

// A path whose cleaned form leads where its written one does, or
// somewhere no rule names, still runs.
func TestS17CleanedPathThatNoRuleNamesRuns(t *testing.T) {
	ex, _ := cleanPathFixture(t, `global: {forbidden_paths: ["**/.ssh/**"], allowed_paths: ["$ROOT/project/**", "$ROOT/elsewhere/**"]}`, false)
	for path, want := range map[string]string{
		"out/file":          "deep file",
		"./out/./file":      "deep file",
		"out/../out/file":   "deep file",
		"out/../readme.md":  "readme",
		"s/../readme.md":    "readme",
		"out/../out/./file": "deep file",
	} {
		res := call(t, ex, "read_clean", map[string]any{"path": path})
		if assert.Nil(t, res.Error, "%s: %v", path, res.Error) {
			assert.Contains(t, res.Text(), want, path)
		}
	}
}

// cutRoot returns what follows "$ROOT/project" in p.
func cutRoot(p string) (string, bool) {
	const prefix = "$ROOT/project"
	if len(p) >= len(prefix) && p[:len(prefix)] == prefix {
		return p[len(prefix):], true
	}
	return "", false
}

// cleanPathFixture is cwdFixture's project with out -> ROOT/elsewhere/deep
// (ROOT/elsewhere/notes/id harmless) and an executor with read_clean, a Go
// tool that cleans its path before opening it. With baseDir the policy has
// WithBaseDir(project), the process works elsewhere and the tool joins
// the path to the project.
func cleanPathFixture(t *testing.T, governance string, baseDir bool) (*executor.Executor, string) {
	t.Helper()
	_, root := cwdFixture(t, "version: 1\n") // its project; read_clean's rules are below
	project := filepath.Join(root, "project")
	deep := filepath.Join(root, "elsewhere", "deep")
	require.NoError(t, os.MkdirAll(deep, 0o700))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "elsewhere", "notes"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(root, "elsewhere", "notes", "id"), []byte("harmless\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(deep, "file"), []byte("deep file\n"), 0o644))
	require.NoError(t, os.Symlink(deep, filepath.Join(project, "out")))
	dir := "."
	opts := []policy.Option{policy.WithEnv(func(k string) (string, bool) {
		return map[string]string{"ROOT": root}[k], k == "ROOT"
	})}
	if baseDir {
		dir = project
		opts = append(opts, policy.WithBaseDir(project))
		t.Chdir(t.TempDir())
	}
	read := tool.Func("read_clean", "Read a file", func(_ context.Context, a readAnyArgs) (string, error) {
		p := filepath.Clean(a.Path)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		b, err := os.ReadFile(p)
		return string(b), err
	})
	p, err := policy.Parse([]byte(governance), opts...)
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(read))
	return executor.MustNew(reg, executor.WithExtensions(p)), root
}
