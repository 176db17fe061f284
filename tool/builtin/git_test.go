package builtin_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

func processSandbox(t testing.TB, dir string) sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.New("process", sandbox.WithWorkspace(dir),
		sandbox.WithLimits(sandbox.Limits{Timeout: 20 * time.Second, OutputBytes: 1 << 20}))
	require.NoError(t, err)
	return sb
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com",
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}

func newGitEnv(t *testing.T) *env {
	e := newEnv(t)
	git(t, e.dir, "init", "-q", "-b", "main")
	e.write(t, "a.txt", "one\n")
	e.write(t, "b.txt", "bee\n")
	git(t, e.dir, "add", ".")
	git(t, e.dir, "commit", "-q", "-m", "first commit")
	e.write(t, "a.txt", "one\ntwo\n")
	git(t, e.dir, "commit", "-q", "-am", "second commit")
	tools, err := builtin.Git(e.ws, processSandbox(t, e.dir))
	require.NoError(t, err)
	require.NoError(t, e.reg.Register(tools...))
	return e
}

func TestGitTools(t *testing.T) {
	e := newGitEnv(t)
	e.write(t, "a.txt", "one\ntwo\nthree\n")
	e.write(t, "b.txt", "BEE\n")
	git(t, e.dir, "add", "b.txt")
	e.write(t, "new.txt", "n\n")

	res := e.call(t, "git_status", map[string]any{})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, "## main\n M a.txt\nM  b.txt\n?? new.txt\n", res.Text())

	res = e.call(t, "git_diff", map[string]any{})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Contains(t, res.Text(), "+three")
	assert.NotContains(t, res.Text(), "BEE", "unstaged only")

	res = e.call(t, "git_diff", map[string]any{"staged": true})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Contains(t, res.Text(), "+BEE")
	assert.NotContains(t, res.Text(), "three")

	res = e.call(t, "git_diff", map[string]any{"path": "b.txt"})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, "", res.Text(), "b.txt has no unstaged change")

	res = e.call(t, "git_log", map[string]any{})
	require.True(t, res.OK(), "%v", res.Error)
	lines := strings.Split(strings.TrimSpace(res.Text()), "\n")
	require.Len(t, lines, 2)
	assert.Regexp(t, `^[0-9a-f]{7,} 2026-01-02 Ada: second commit$`, lines[0])

	res = e.call(t, "git_log", map[string]any{"count": 1})
	assert.Len(t, strings.Split(strings.TrimSpace(res.Text()), "\n"), 1)
	res = e.call(t, "git_log", map[string]any{"ref": "HEAD~1", "path": "a.txt"})
	assert.Contains(t, res.Text(), "first commit")
	assert.NotContains(t, res.Text(), "second commit")
}

// Model values never become git options, and git never leaves the
// workspace's repository.
func TestGitToolsRefuseOptionsAndEscapes(t *testing.T) {
	e := newGitEnv(t)
	marker := filepath.Join(e.dir, "pwned")
	for _, ref := range []string{"--output=" + marker, "-p", "--exec=touch " + marker} {
		res := e.call(t, "git_log", map[string]any{"ref": ref})
		require.NotNil(t, res.Error, ref)
		assert.Equal(t, tool.CodeInvalidArguments, res.Error.Code)
	}
	res := e.call(t, "git_diff", map[string]any{"path": "--output=" + marker})
	require.True(t, res.OK(), "after -- the value is a path: %v", res.Error)
	assert.NoFileExists(t, marker)

	res = e.call(t, "git_log", map[string]any{"path": "../../etc/passwd"})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeNonZeroExit, res.Error.Code)
	assert.Contains(t, res.Error.Message, "outside repository")

	// A workspace without a repository does not see the one above it.
	sub := filepath.Join(e.dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	ws, err := sandbox.OpenWorkspace(sub)
	require.NoError(t, err)
	defer ws.Close()
	st, err := builtin.GitStatus(ws, processSandbox(t, sub))
	require.NoError(t, err)
	_, err = st.Run(context.Background(), tool.Call{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a git repository")
}

// The git tools' command lines are judged safe, so an approval policy
// that auto-approves safe calls lets them through.
func TestGitToolsAssessSafe(t *testing.T) {
	e := newGitEnv(t)
	for name, args := range map[string]string{"git_status": `{}`, "git_diff": `{"staged":true,"path":"a.txt"}`, "git_log": `{"count":3,"ref":"main","path":"a.txt"}`} {
		entry, ok := e.reg.Lookup(name)
		require.True(t, ok)
		a, ok := entry.Tool.(interface {
			Assess(json.RawMessage) classify.Verdict
		})
		require.True(t, ok, name)
		v := a.Assess(json.RawMessage(args))
		assert.Equal(t, classify.Safe, v.Level, "%s: %v", name, v.Reasons)
		assert.Equal(t, tool.RiskLow, entry.Spec.Risk)
		assert.True(t, entry.Spec.Annotations.ReadOnly)
	}
}

func TestRunTests(t *testing.T) {
	dir := t.TempDir()
	sb := processSandbox(t, dir)
	ok, err := builtin.RunTests(sb, []string{"sh", "-c", "echo PASS"})
	require.NoError(t, err)
	res, err := ok.Run(context.Background(), tool.Call{})
	require.NoError(t, err)
	assert.Equal(t, "PASS\n", res.Text())
	assert.JSONEq(t, `{"type":"object","properties":{},"additionalProperties":false}`, string(ok.Spec().InputSchema), "the model passes nothing")

	failing, err := builtin.RunTests(sb, []string{"sh", "-c", "echo '--- FAIL: TestX'; exit 1"}, shell.WithOutputBudget(100))
	require.NoError(t, err)
	res, err = failing.Run(context.Background(), tool.Call{})
	require.Error(t, err)
	assert.Equal(t, tool.CodeNonZeroExit, tool.AsError(err).Code)
	assert.Contains(t, res.Text(), "--- FAIL: TestX")
}

func TestAllAssemblesTheCatalog(t *testing.T) {
	dir := t.TempDir()
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	tools, err := builtin.All(ws, processSandbox(t, dir), builtin.WithTestCommand("go", "test", "./..."), builtin.WithBash())
	require.NoError(t, err)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Spec().Name)
	}
	assert.Equal(t, []string{"read_file", "list_directory", "write_file", "edit_file", "delete_file", "search_files",
		"git_status", "git_diff", "git_log", "system_metrics", "process_health", "run_tests", "bash"}, names)

	_, err = builtin.All(ws, nil)
	assert.ErrorContains(t, err, "sandbox is nil")
}

// git_diff leaves out what the workspace hides and says how many, without
// naming them anywhere in its result; its path is literal and resolved in
// the workspace, so git's wildcards do not widen it and a symlink inside
// the workspace names its target.
func TestGitDiffLeavesOutHiddenPaths(t *testing.T) {
	dir := t.TempDir()
	hide := func(rel, _ string) string {
		if rel == "private" || strings.HasPrefix(rel, "private/") {
			return "test rule private/**"
		}
		return ""
	}
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithHide(hide))
	require.NoError(t, err)
	defer ws.Close()
	root := ws.Dir()
	git(t, root, "init", "-q", "-b", "main")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "private"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "private", "p.txt"), []byte("p1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "a*.txt"), []byte("a1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "ab.txt"), []byte("b1\n"), 0o644))
	git(t, root, "add", ".")
	git(t, root, "commit", "-q", "-m", "first")
	for name, content := range map[string]string{"private/p.txt": "P-HIDDEN\n", "a*.txt": "a2\n", "ab.txt": "b2\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}
	require.NoError(t, os.Symlink(".", filepath.Join(root, "here")))
	diff, err := builtin.GitDiff(ws, processSandbox(t, root))
	require.NoError(t, err)
	ws2, ok := diff.(interface{ Workspace() *sandbox.Workspace })
	require.True(t, ok, "git_diff names its workspace for the policy")
	assert.Same(t, ws, ws2.Workspace())
	assert.Equal(t, []string{"path"}, sandbox.PathArguments(diff.Spec().InputSchema))

	run := func(args string) *tool.Result {
		res, err := diff.Run(context.Background(), tool.Call{Name: "git_diff", Args: json.RawMessage(args)})
		require.NoError(t, err)
		return res
	}
	res := run(`{}`)
	b, _ := json.Marshal(res)
	assert.NotContains(t, string(b), "P-HIDDEN")
	assert.NotContains(t, string(b), "p.txt", "the hidden path is named nowhere, also not in the argv metadata")
	assert.Contains(t, res.Text(), "+a2")
	assert.Contains(t, res.Text(), "+b2")
	assert.True(t, strings.HasSuffix(res.Text(), "[1 changed path hidden by policy]\n"), res.Text())
	assert.Equal(t, 1, res.Metadata[builtin.MetaHidden])

	res = run(`{"path":"a*.txt"}`)
	assert.Contains(t, res.Text(), "+a2")
	assert.NotContains(t, res.Text(), "+b2", "a* is a literal name, not a wildcard")
	assert.Nil(t, res.Metadata[builtin.MetaHidden])
	res = run(`{"path":"here/ab.txt"}`)
	assert.Contains(t, res.Text(), "+b2", "resolved through the symlink")
	entry, err := diff.Run(context.Background(), tool.Call{Name: "git_diff", Args: json.RawMessage(`{"path":"../x"}`)})
	require.Error(t, err)
	assert.Nil(t, entry)
	assert.Equal(t, tool.CodeFilesystemPolicy, tool.AsError(err).Code)
}

// A submodule's own configuration may name a program (core.fsmonitor) for
// the "git status" git runs inside it to see whether it is dirty; plain git
// runs it and prints its stderr (here a hidden file's content). The
// GIT_CONFIG_COUNT override reaches that inner git (measured with git
// 2.39: held), so the read-only tools run no such program; this fails if
// it stops reaching it.
func TestGitToolsRunNoSubmoduleProgram(t *testing.T) {
	e := newGitEnv(t)
	sub := t.TempDir()
	git(t, sub, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(sub, "f"), []byte("a\n"), 0o644))
	git(t, sub, "add", "f")
	git(t, sub, "commit", "-q", "-m", "f")
	git(t, e.dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "vendor/sub")
	git(t, e.dir, "commit", "-q", "-m", "submodule")
	marker := filepath.Join(t.TempDir(), "ran")
	e.write(t, "secrets/key", "TOPSECRET-9931\n")
	git(t, filepath.Join(e.dir, "vendor/sub"), "config", "core.fsmonitor",
		"touch "+marker+"; cat "+filepath.Join(e.dir, "secrets/key")+" >&2; false")
	require.NoError(t, os.WriteFile(filepath.Join(e.dir, "vendor/sub/f"), []byte("b\n"), 0o644))
	for _, c := range []struct {
		name string
		args map[string]any
	}{{"git_status", map[string]any{}}, {"git_diff", map[string]any{}}, {"git_diff", map[string]any{"staged": true}}} {
		res := e.call(t, c.name, c.args)
		require.True(t, res.OK(), "%s: %v", c.name, res.Error)
		assert.NotContains(t, res.Text(), "TOPSECRET", c.name)
		assert.NoFileExists(t, marker, "%s ran the submodule's core.fsmonitor", c.name)
	}
}
