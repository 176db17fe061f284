package policy_test

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
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

const secret = "TOPSECRET-4711"

// workspaceFixture is a workspace with secrets/key, a symlink alias ->
// secrets, and the built-in file tools on it behind the policy, wired the
// way docs/sandbox.md says: the workspace hides what the policy forbids.
func workspaceFixture(t *testing.T, governance string) (*executor.Executor, string) {
	t.Helper()
	p, err := policy.Parse([]byte(governance))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte(secret+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "public.txt"), []byte("public\n"), 0o644))
	require.NoError(t, os.Symlink("secrets", filepath.Join(dir, "alias")))
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithHide(p.Hide))
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	return executor.MustNew(reg, executor.WithExtensions(p)), ws.Dir()
}

func call(t *testing.T, ex *executor.Executor, name string, args map[string]any) *tool.Result {
	t.Helper()
	b, err := json.Marshal(args)
	require.NoError(t, err)
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: b})
	require.NotNil(t, res)
	return res
}

func resultText(res *tool.Result) string {
	b, _ := json.Marshal(res)
	return string(b)
}

// The attacks of issue 14: a forbidden directory reached through a symlink,
// an absolute path, "./", search results and directory listings. Each was
// seen to reveal the secret before paths were resolved.
func TestForbiddenPathsHoldAfterResolution(t *testing.T) {
	ex, dir := workspaceFixture(t, `global: {forbidden_paths: ["secrets/**"]}`)
	for _, p := range []string{"secrets/key", "./secrets/key", "alias/key", filepath.Join(dir, "secrets/key"), filepath.Join(dir, "alias/key"), "public.txt/../secrets/key"} {
		t.Run("read_file "+p, func(t *testing.T) {
			res := call(t, ex, "read_file", map[string]any{"path": p})
			require.NotNil(t, res.Error, "read allowed: %s", resultText(res))
			assert.NotContains(t, resultText(res), secret)
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
			assert.Equal(t, "global.forbidden_paths", res.Metadata[policy.MetaRule])
			assert.Contains(t, res.Error.Message, "secrets/key", "the refusal names the resolved path")
		})
	}
	t.Run("write_file through the alias", func(t *testing.T) {
		res := call(t, ex, "write_file", map[string]any{"path": "alias/new", "content": "x"})
		require.NotNil(t, res.Error)
		assert.NoFileExists(t, filepath.Join(dir, "secrets/new"))
	})
	t.Run("search_files", func(t *testing.T) {
		res := call(t, ex, "search_files", map[string]any{"pattern": "TOPSECRET"})
		require.True(t, res.OK(), "%v", res.Error)
		assert.NotContains(t, resultText(res), secret)
		assert.Contains(t, res.Text(), "hidden by policy")
		res = call(t, ex, "search_files", map[string]any{"pattern": "TOPSECRET", "path": "alias"})
		require.NotNil(t, res.Error, "searching the forbidden directory through its alias: %s", resultText(res))
		assert.NotContains(t, resultText(res), secret)
	})
	t.Run("list_directory", func(t *testing.T) {
		res := call(t, ex, "list_directory", map[string]any{"path": ".", "depth": 3})
		require.True(t, res.OK(), "%v", res.Error)
		assert.NotContains(t, res.Text(), "secrets/")
		assert.NotContains(t, res.Text(), "key")
		assert.Contains(t, res.Text(), "public.txt")
		assert.Contains(t, res.Text(), "1 entry hidden by policy")
		res = call(t, ex, "list_directory", map[string]any{"path": "alias"})
		require.NotNil(t, res.Error, "listing the forbidden directory through its alias: %s", resultText(res))
		assert.NotContains(t, res.Text(), "key")
	})
}

// The policy resolves a file tool's path in the tool's own workspace even
// when the workspace was opened without the policy's Hide; escapes are a
// filesystem_policy refusal naming the path and the link.
func TestPathsResolvedInTheToolsWorkspace(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "ws", "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ws", "secrets", "key"), []byte(secret), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "outside.txt"), []byte("out"), 0o600))
	require.NoError(t, os.Symlink("secrets", filepath.Join(dir, "ws", "alias")))
	require.NoError(t, os.Symlink("../outside.txt", filepath.Join(dir, "ws", "out")))
	var p *policy.Policy // the policy reads the workspace's directory; the workspace hides what it forbids
	ws, err := sandbox.OpenWorkspace(filepath.Join(dir, "ws"), sandbox.WithHide(func(rel, abs string) string { return p.Hide(rel, abs) }))
	require.NoError(t, err)
	defer ws.Close()
	envs := func(k string) (string, bool) {
		if k == "WS" {
			return ws.Dir(), true
		}
		return "", false
	}
	// An absolute glob matches the host path of the resolved argument.
	p, err = policy.Parse([]byte("global: {forbidden_paths: [\"$WS/secrets/**\"]}\n"), policy.WithEnv(envs))
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for _, path := range []string{"alias/key", "./secrets/key", filepath.Join(ws.Dir(), "alias", "key")} {
		res := call(t, ex, "read_file", map[string]any{"path": path})
		require.NotNil(t, res.Error, path)
		assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, path)
		assert.Contains(t, res.Error.Message, `resolved: "secrets/key"`)
	}
	res := call(t, ex, "read_file", map[string]any{"path": "out"})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeFilesystemPolicy, res.Error.Code)
	assert.Equal(t, "paths.resolve", res.Metadata[policy.MetaRule])
	assert.Contains(t, res.Error.Message, `"out" -> "../outside.txt" leads out of the workspace`)

	// Evaluate alone resolves in WithWorkspace's workspace.
	spec := tool.Spec{Name: "custom", InputSchema: json.RawMessage(`{"type":"object","properties":{"where":{"type":"string","x-toolbelt-path":true},"path":{"type":"string"}}}`)}
	p2, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**"]}`), policy.WithWorkspace(ws))
	require.NoError(t, err)
	rule, err := p2.Evaluate(tool.ModeNormal, &spec, json.RawMessage(`{"where":"alias/key"}`))
	require.Error(t, err)
	assert.Equal(t, "global.forbidden_paths", rule)
	// Only the declared argument is a path: "path" of this tool is not.
	_, err = p2.Evaluate(tool.ModeNormal, &spec, json.RawMessage(`{"where":"public","path":"secrets/key"}`))
	assert.NoError(t, err, "an argument not declared a path is not judged as one")
}

// Hide follows the rules the policy holds, absolute and relative.
func TestHide(t *testing.T) {
	p, err := policy.Parse([]byte("global: {forbidden_paths: [\"secrets/**\", \"/srv/ws/private/*.txt\"]}\ntools:\n  read_file: {forbidden_paths: [\"docs/**\"]}\n"))
	require.NoError(t, err)
	assert.Contains(t, p.Hide("secrets", "/srv/ws/secrets"), `policy rule global.forbidden_paths (governance.yaml:1): forbidden pattern "secrets/**"`)
	assert.Contains(t, p.Hide("secrets/a/b", "/srv/ws/secrets/a/b"), `"secrets/**"`)
	assert.Contains(t, p.Hide("private/a.txt", "/srv/ws/private/a.txt"), `"/srv/ws/private/*.txt"`)
	assert.Empty(t, p.Hide("private/a.md", "/srv/ws/private/a.md"))
	assert.Empty(t, p.Hide("docs/a", "/srv/ws/docs/a"), "a tool's own rules judge that tool's arguments, not the workspace")
	assert.Empty(t, p.Hide(".", "/srv/ws"))
	assert.Empty(t, policy.New().Hide("secrets/a", "/x/secrets/a"))
}

// Check warns when path rules apply to a tool that declares no path
// argument (its paths are then found by name only), not for the built-in
// file tools, which declare theirs.
func TestCheckWarnsAboutUndeclaredPaths(t *testing.T) {
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**"]}`))
	require.NoError(t, err)
	ws, err := sandbox.OpenWorkspace(t.TempDir())
	require.NoError(t, err)
	defer ws.Close()
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	type legacy struct {
		File string `json:"file"`
		Note string `json:"note,omitempty"`
	}
	reg.MustRegister(tool.Func("legacy", "l", func(context.Context, legacy) (string, error) { return "", nil }))
	warnings := p.Check(reg)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0].String(), `tool "legacy" declares no path argument, so the path rules take file as paths by name only`)
}

// A symlink swapped in after the policy judged the path (here by an
// extension that runs between the policy and the tool) is refused when the
// file is opened, because the workspace hides what the policy forbids.
func TestSwapAfterThePolicyCheckIsRefused(t *testing.T) {
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**"]}`))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte(secret), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "note.txt"), []byte("note"), 0o644))
	swap := extension.Hooks{ExtName: "swap", Prio: extension.PriorityPolicy + 1, Before: func(context.Context, *extension.Request) *tool.Result {
		require.NoError(t, os.Remove(filepath.Join(dir, "note.txt")))
		require.NoError(t, os.Symlink("secrets/key", filepath.Join(dir, "note.txt")))
		return nil
	}}
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithHide(p.Hide))
	require.NoError(t, err)
	defer ws.Close()
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	ex := executor.MustNew(reg, executor.WithExtensions(p, swap))
	res := call(t, ex, "read_file", map[string]any{"path": "note.txt"})
	require.NotNil(t, res.Error, "read allowed: %s", resultText(res))
	assert.NotContains(t, resultText(res), secret)
	assert.Equal(t, tool.CodeFilesystemPolicy, res.Error.Code, "%v", res.Error)
	assert.Contains(t, res.Error.Message, "hidden by policy")
}

// allowed_paths and a tool's own forbidden_paths bind the tools that list
// and search too: leaving out the (optional) directory argument, or naming
// a directory that holds what the tool may not reach, does not list or
// search it. Seen to return secrets/key's content and names before: an
// absent path argument was not judged at all, and a directory was judged
// by its own name only.
func TestListAndSearchCannotReachWhatTheRulesForbid(t *testing.T) {
	for _, tc := range []struct {
		name, governance, tool, args, rule string
	}{
		{"global allowed_paths, search without a path", `global: {allowed_paths: ["public.txt"]}`,
			"search_files", `{"pattern":"TOPSECRET"}`, "global.allowed_paths"},
		{"global allowed_paths, list without a path", `global: {allowed_paths: ["public.txt"]}`,
			"list_directory", `{"depth":3}`, "global.allowed_paths"},
		{"tool allowed_paths, search without a path", `tools: {search_files: {allowed_paths: ["public.txt"]}}`,
			"search_files", `{"pattern":"TOPSECRET"}`, "tools.search_files.allowed_paths"},
		{"tool forbidden_paths, search without a path", `tools: {search_files: {forbidden_paths: ["secrets/**"]}}`,
			"search_files", `{"pattern":"TOPSECRET"}`, "tools.search_files.forbidden_paths"},
		{"tool forbidden_paths, search the root", `tools: {search_files: {forbidden_paths: ["secrets/**"]}}`,
			"search_files", `{"pattern":"TOPSECRET","path":"."}`, "tools.search_files.forbidden_paths"},
		{"tool forbidden_paths, list the root", `tools: {list_directory: {forbidden_paths: ["secrets/key"]}}`,
			"list_directory", `{"path":"./","depth":3}`, "tools.list_directory.forbidden_paths"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, _ := workspaceFixture(t, tc.governance)
			res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: tc.tool, Args: json.RawMessage(tc.args)})
			require.NotNil(t, res)
			require.NotNil(t, res.Error, "allowed: %s", resultText(res))
			assert.NotContains(t, resultText(res), secret)
			assert.NotContains(t, resultText(res), `"path":"secrets/key"`, "a listing or search entry")
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
			assert.Equal(t, tc.rule, res.Metadata[policy.MetaRule], "%v", res.Error)
		})
	}
	// The refusal speaks to the model (name another directory); how the
	// operator could change the rule is the error's cause.
	ex, _ := workspaceFixture(t, `tools: {list_directory: {forbidden_paths: ["secrets/key"]}}`)
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "list_directory", Args: json.RawMessage(`{"path":"./","depth":3}`)})
	require.NotNil(t, res.Error)
	assert.True(t, strings.HasSuffix(res.Error.Message, `holds paths matching forbidden pattern "secrets/key", which listing or searching it would reach: name a directory outside them`), res.Error.Message)
	assert.NotContains(t, res.Error.Message, "global.forbidden_paths", "the model cannot change the governance file")
	assert.ErrorContains(t, res.Error.Err, "make the pattern global")

	// What the rules allow still runs: a directory that holds nothing
	// forbidden, a present path under allowed_paths, other tools.
	ex, dir := workspaceFixture(t, `tools: {search_files: {forbidden_paths: ["secrets/**"]}}`)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "docs", "a.md"), []byte("public words\n"), 0o644))
	res = call(t, ex, "search_files", map[string]any{"pattern": "public", "path": "docs"})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Contains(t, res.Text(), "docs/a.md:1: public words")
	res = call(t, ex, "list_directory", map[string]any{})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Contains(t, res.Text(), "secrets/", "a rule of search_files does not bind list_directory")
	ex, _ = workspaceFixture(t, `global: {allowed_paths: ["public.txt", "docs/**"]}`)
	res = call(t, ex, "read_file", map[string]any{"path": "public.txt"})
	require.True(t, res.OK(), "%v", res.Error)
}

// A forbidden pattern written as a directory ("secrets", "secrets/",
// "./secrets") forbids what is inside it: before, it matched the directory
// alone and read_file secrets/key went through. Tool-level too.
func TestForbiddenDirectoryCoversItsContents(t *testing.T) {
	for _, gov := range []string{
		`global: {forbidden_paths: ["secrets"]}`,
		`global: {forbidden_paths: ["secrets/"]}`,
		`global: {forbidden_paths: ["./secrets/**"]}`,
		`tools: {read_file: {forbidden_paths: ["./secrets"]}}`,
	} {
		t.Run(gov, func(t *testing.T) {
			ex, _ := workspaceFixture(t, gov)
			for _, p := range []string{"secrets/key", "alias/key"} {
				res := call(t, ex, "read_file", map[string]any{"path": p})
				require.NotNil(t, res.Error, "read %s allowed: %s", p, resultText(res))
				assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
				assert.NotContains(t, resultText(res), secret)
			}
			res := call(t, ex, "read_file", map[string]any{"path": "public.txt"})
			assert.True(t, res.OK(), "%v", res.Error)
		})
	}
}
