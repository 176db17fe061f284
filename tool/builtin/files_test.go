package builtin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type env struct {
	dir string
	ws  *sandbox.Workspace
	ex  *executor.Executor
	reg *registry.Registry
}

func newEnv(t testing.TB, opts ...builtin.Option) *env {
	t.Helper()
	dir := t.TempDir()
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws, opts...)...))
	return &env{dir: ws.Dir(), ws: ws, ex: executor.MustNew(reg), reg: reg}
}

func (e *env) write(t testing.TB, name, content string) {
	t.Helper()
	p := filepath.Join(e.dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func (e *env) call(t testing.TB, name string, args any) *tool.Result {
	t.Helper()
	b, err := json.Marshal(args)
	require.NoError(t, err)
	res, _ := e.ex.Execute(context.Background(), tool.Call{ID: "1", Name: name, Args: b})
	require.NotNil(t, res)
	return res
}

func code(res *tool.Result) tool.Code {
	if res.Error == nil {
		return ""
	}
	return res.Error.Code
}

func TestReadFileRangesAndCaps(t *testing.T) {
	e := newEnv(t, builtin.WithMaxReadBytes(40))
	var lines []string
	for i := 1; i <= 10; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	e.write(t, "ten.txt", strings.Join(lines, "\n")+"\n")
	e.write(t, "empty.txt", "")
	e.write(t, "long.txt", strings.Repeat("x", 100)+"\nnext\n")
	e.write(t, "bin.dat", "abc\x00def")

	tests := []struct {
		name string
		args map[string]any
		want string
		code tool.Code
	}{
		{"range", map[string]any{"path": "ten.txt", "offset": 3, "limit": 2}, "line 3\nline 4\n[... more lines follow: this is lines 3-4; read on with offset=5]", ""},
		{"to the end", map[string]any{"path": "ten.txt", "offset": 9}, "line 9\nline 10\n", ""},
		{"byte cap stops at a line", map[string]any{"path": "ten.txt"}, "line 1\nline 2\nline 3\nline 4\nline 5\n[... more lines follow: this is lines 1-5; read on with offset=6]", ""},
		{"first line over the cap is cut", map[string]any{"path": "long.txt"}, strings.Repeat("x", 40) + "\n[... line 1 is longer than the 40-byte cap and was cut]\n[... more lines follow: this is lines 1-1; read on with offset=2]", ""},
		{"empty file", map[string]any{"path": "empty.txt"}, "(empty file)", ""},
		{"past the end", map[string]any{"path": "ten.txt", "offset": 11}, "", tool.CodeInvalidArguments},
		{"binary", map[string]any{"path": "bin.dat"}, "", tool.CodeInvalidArguments},
		{"missing", map[string]any{"path": "nope.txt"}, "", tool.CodeInvalidArguments},
		{"offset below 1 is invalid", map[string]any{"path": "ten.txt", "offset": 0}, "", tool.CodeInvalidArguments},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := e.call(t, "read_file", tc.args)
			assert.Equal(t, tc.code, code(res), "%v", res.Error)
			if tc.code == "" {
				assert.Equal(t, tc.want, res.Text())
			}
		})
	}
}

func TestListDirectoryDepthAndCap(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.txt", "1")
	e.write(t, "sub/b.txt", "22")
	e.write(t, "sub/deep/c.txt", "333")
	require.NoError(t, os.Mkdir(filepath.Join(e.dir, ".git"), 0o755))
	e.write(t, ".git/HEAD", "ref")

	res := e.call(t, "list_directory", map[string]any{})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, ".git/\na.txt (1 bytes)\nsub/\n", res.Text())

	res = e.call(t, "list_directory", map[string]any{"path": "sub", "depth": 2})
	require.True(t, res.OK(), "%v", res.Error)
	var l builtin.Listing
	require.NoError(t, json.Unmarshal(res.Output, &l))
	assert.Equal(t, []builtin.Entry{{Path: "sub/b.txt", Type: "file", Size: 2}, {Path: "sub/deep", Type: "dir"}, {Path: "sub/deep/c.txt", Type: "file", Size: 3}}, l.Entries)

	res = e.call(t, "list_directory", map[string]any{"depth": 10})
	require.NoError(t, json.Unmarshal(res.Output, &l))
	for _, en := range l.Entries {
		assert.NotEqual(t, ".git/HEAD", en.Path, ".git is not descended")
	}

	capped := newEnv(t, builtin.WithMaxEntries(2))
	for i := range 5 {
		capped.write(t, fmt.Sprintf("f%d", i), "")
	}
	res = capped.call(t, "list_directory", map[string]any{})
	require.NoError(t, json.Unmarshal(res.Output, &l))
	assert.Len(t, l.Entries, 2)
	assert.True(t, l.Truncated)
	assert.Contains(t, res.Text(), "stopped at 2 entries")

	assert.Equal(t, tool.CodeInvalidArguments, code(e.call(t, "list_directory", map[string]any{"path": "a.txt"})))
}

func TestWriteEditDelete(t *testing.T) {
	e := newEnv(t)
	res := e.call(t, "write_file", map[string]any{"path": "new/dir/f.txt", "content": "alpha beta beta\n"})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, "created new/dir/f.txt (16 bytes)", res.Text())
	got, err := os.ReadFile(filepath.Join(e.dir, "new/dir/f.txt"))
	require.NoError(t, err)
	assert.Equal(t, "alpha beta beta\n", string(got))

	require.NoError(t, os.Chmod(filepath.Join(e.dir, "new/dir/f.txt"), 0o755))
	res = e.call(t, "write_file", map[string]any{"path": "new/dir/f.txt", "content": "alpha beta beta gamma\n"})
	require.True(t, res.OK(), "%v", res.Error)
	fi, err := os.Stat(filepath.Join(e.dir, "new/dir/f.txt"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), "overwriting keeps the permissions")

	tests := []struct {
		name   string
		args   map[string]any
		code   tool.Code
		substr string
	}{
		{"missing old string", map[string]any{"path": "new/dir/f.txt", "old_string": "delta", "new_string": "x"}, tool.CodeInvalidArguments, "occurs 0 times"},
		{"not unique", map[string]any{"path": "new/dir/f.txt", "old_string": "beta", "new_string": "x"}, tool.CodeInvalidArguments, "occurs 2 times"},
		{"same strings", map[string]any{"path": "new/dir/f.txt", "old_string": "beta", "new_string": "beta"}, tool.CodeInvalidArguments, "the same"},
		{"missing file", map[string]any{"path": "none.txt", "old_string": "a", "new_string": "b"}, tool.CodeInvalidArguments, "none.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := e.call(t, "edit_file", tc.args)
			assert.Equal(t, tc.code, code(res))
			assert.Contains(t, res.Error.Message, tc.substr)
		})
	}
	res = e.call(t, "edit_file", map[string]any{"path": "new/dir/f.txt", "old_string": "alpha", "new_string": "ALPHA"})
	require.True(t, res.OK(), "%v", res.Error)
	res = e.call(t, "edit_file", map[string]any{"path": "new/dir/f.txt", "old_string": "beta", "new_string": "B", "replace_all": true})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, 2, res.Metadata[builtin.MetaReplaced])
	got, _ = os.ReadFile(filepath.Join(e.dir, "new/dir/f.txt"))
	assert.Equal(t, "ALPHA B B gamma\n", string(got))

	assert.Equal(t, tool.CodeInvalidArguments, code(e.call(t, "delete_file", map[string]any{"path": "new/dir"})), "not empty")
	res = e.call(t, "delete_file", map[string]any{"path": "new/dir/f.txt"})
	require.True(t, res.OK(), "%v", res.Error)
	assert.NoFileExists(t, filepath.Join(e.dir, "new/dir/f.txt"))
	res = e.call(t, "delete_file", map[string]any{"path": "new/dir"})
	require.True(t, res.OK(), "%v", res.Error)
	assert.NoDirExists(t, filepath.Join(e.dir, "new/dir"))
}

func TestSearchFiles(t *testing.T) {
	e := newEnv(t, builtin.WithMaxSearchFileSize(1000))
	e.write(t, "main.go", "package main\n\nfunc main() { Hello() }\n")
	e.write(t, "lib/hello.go", "package lib\n// Hello says hi\nfunc Hello() {}\n")
	e.write(t, "lib/notes.md", "hello (a.b)\n")
	e.write(t, "big.go", strings.Repeat("Hello\n", 500))
	e.write(t, "bin.go", "Hello\x00")
	e.write(t, ".git/config", "Hello")

	search := func(args map[string]any) builtin.SearchResult {
		t.Helper()
		res := e.call(t, "search_files", args)
		require.True(t, res.OK(), "%v", res.Error)
		var out builtin.SearchResult
		require.NoError(t, json.Unmarshal(res.Output, &out))
		return out
	}
	out := search(map[string]any{"pattern": `func \w+\(\)`})
	assert.Equal(t, []builtin.Match{{Path: "lib/hello.go", Line: 3, Text: "func Hello() {}"}, {Path: "main.go", Line: 3, Text: "func main() { Hello() }"}}, out.Matches)
	assert.Equal(t, 2, out.FilesSkipped, "the binary and the big file are skipped")

	out = search(map[string]any{"pattern": "hello", "ignore_case": true, "glob": "*.go"})
	assert.Len(t, out.Matches, 3)
	out = search(map[string]any{"pattern": "(a.b)", "literal": true})
	assert.Equal(t, []builtin.Match{{Path: "lib/notes.md", Line: 1, Text: "hello (a.b)"}}, out.Matches)
	out = search(map[string]any{"pattern": "Hello", "path": "lib", "glob": "lib/**/*.go"})
	assert.Len(t, out.Matches, 2)
	out = search(map[string]any{"pattern": "Hello", "max_matches": 1})
	assert.Len(t, out.Matches, 1)
	assert.True(t, out.Truncated)

	res := e.call(t, "search_files", map[string]any{"pattern": "("})
	assert.Equal(t, tool.CodeInvalidArguments, code(res))
	assert.Contains(t, res.Error.Message, "not a valid regular expression")

	// A glob the workspace's dialect refuses says which rule it breaks.
	for glob, rule := range map[string]string{"**.go": "whole path segment", "./lib/*.go": "clean path", "lib/": "clean path"} {
		res = e.call(t, "search_files", map[string]any{"pattern": "Hello", "glob": glob})
		assert.Equal(t, tool.CodeInvalidArguments, code(res), glob)
		assert.Contains(t, res.Error.Message, rule, glob)
	}
}

// Every file tool refuses paths that leave the workspace: "..", absolute
// paths outside it, and symlinks that point out.
func TestFileToolsRefuseEscapes(t *testing.T) {
	e := newEnv(t)
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(e.dir, "out")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(e.dir, "secret-link")))

	paths := []string{"../secret.txt", filepath.Join(outside, "secret.txt"), "out/secret.txt", "secret-link", "/etc/passwd"}
	calls := map[string]func(p string) map[string]any{
		"read_file":      func(p string) map[string]any { return map[string]any{"path": p} },
		"list_directory": func(p string) map[string]any { return map[string]any{"path": filepath.Dir(p)} },
		"write_file":     func(p string) map[string]any { return map[string]any{"path": p, "content": "pwned"} },
		"edit_file": func(p string) map[string]any {
			return map[string]any{"path": p, "old_string": "secret", "new_string": "pwned"}
		},
		"delete_file":  func(p string) map[string]any { return map[string]any{"path": p} },
		"search_files": func(p string) map[string]any { return map[string]any{"pattern": "secret", "path": filepath.Dir(p)} },
	}
	for name, mk := range calls {
		for _, p := range paths {
			args := mk(p)
			if name == "list_directory" || name == "search_files" {
				if args["path"] == "." {
					continue // the workspace itself
				}
			}
			if name == "delete_file" && p == "secret-link" {
				continue // removing the link itself is inside the workspace
			}
			t.Run(name+" "+p, func(t *testing.T) {
				res := e.call(t, name, args)
				require.NotNil(t, res.Error, "escape allowed")
				assert.Equal(t, tool.CodeFilesystemPolicy, res.Error.Code, "%v", res.Error)
			})
		}
	}
	// A write through a link is judged on its target, outside: refused, and
	// the link is left as it was.
	res := e.call(t, "write_file", map[string]any{"path": "secret-link", "content": "mine"})
	require.NotNil(t, res.Error)
	assert.Contains(t, res.Error.Message, "leads out of the workspace")
	fi, err := os.Lstat(filepath.Join(e.dir, "secret-link"))
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, fi.Mode().Type())
	got, err := os.ReadFile(filepath.Join(outside, "secret.txt"))
	require.NoError(t, err)
	assert.Equal(t, "secret", string(got), "nothing outside was changed")
	_, err = os.Stat(filepath.Join(outside, "pwned"))
	assert.True(t, os.IsNotExist(err))
}

func TestFileToolsDeclareResources(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		tool string
		args string
		want []tool.Resource
	}{
		{"read_file", `{"path":"./a/../b.txt"}`, []tool.Resource{{Key: "file:b.txt", Access: tool.Read}}},
		{"write_file", `{"path":"b.txt","content":""}`, []tool.Resource{{Key: "file:b.txt", Access: tool.Write}}},
		{"edit_file", `{"path":"` + e.dir + `/b.txt","old_string":"a","new_string":"b"}`, []tool.Resource{{Key: "file:b.txt", Access: tool.Write}}},
		{"delete_file", `{"path":"b.txt"}`, []tool.Resource{{Key: "file:b.txt", Access: tool.Write}}},
		{"list_directory", `{}`, []tool.Resource{{Key: "file:.", Access: tool.Read}}},
	}
	for _, tc := range tests {
		entry, ok := e.reg.Lookup(tc.tool)
		require.True(t, ok)
		rd, ok := entry.Tool.(tool.ResourceDeclarer)
		require.True(t, ok, tc.tool)
		assert.Equal(t, tc.want, rd.Resources(json.RawMessage(tc.args)), tc.tool)
	}
}

func TestSpecsRiskAndAnnotations(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name                  string
		risk                  tool.Risk
		readOnly, destructive bool
	}{
		{"read_file", tool.RiskLow, true, false},
		{"list_directory", tool.RiskLow, true, false},
		{"search_files", tool.RiskLow, true, false},
		{"write_file", tool.RiskMedium, false, false},
		{"edit_file", tool.RiskMedium, false, false},
		{"delete_file", tool.RiskHigh, false, true},
	}
	for _, tc := range tests {
		entry, ok := e.reg.Lookup(tc.name)
		require.True(t, ok, tc.name)
		assert.Equal(t, tc.risk, entry.Spec.Risk, tc.name)
		assert.Equal(t, tc.readOnly, entry.Spec.Annotations.ReadOnly, tc.name)
		assert.Equal(t, tc.readOnly, tc.readOnly && entry.Spec.Annotations.Idempotent, tc.name)
		assert.Equal(t, tc.destructive, entry.Spec.Annotations.Destructive, tc.name)
	}
	err := registry.New().Register(builtin.Files(nil)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "workspace is nil")
}

// Issue 14: every path component named .git, .hg or .svn is protected for
// writes at any depth (the payload of vendor/lib/.git/config would run at
// the next git status there). Seen to succeed before the fix.
func TestFileToolsProtectVCSDirectoriesAtAnyDepth(t *testing.T) {
	e := newEnv(t)
	e.write(t, "vendor/lib/.git/config", "[core]\n")
	e.write(t, "vendor/lib/.git/hooks/x", "ok\n")
	require.NoError(t, os.Symlink("vendor/lib/.git", filepath.Join(e.dir, "gitdir")))
	for _, p := range []string{"vendor/lib/.git/config", "vendor/lib/.git/hooks/pre-commit", ".git/config", "a/.hg/hgrc", "b/c/.svn/entries", "gitdir/config", "vendor/lib/.GIT/config"} {
		t.Run("write_file "+p, func(t *testing.T) {
			res := e.call(t, "write_file", map[string]any{"path": p, "content": "[core]\n\tfsmonitor = touch /tmp/pwned\n"})
			require.NotNil(t, res.Error, "write allowed")
			assert.Equal(t, tool.CodeFilesystemPolicy, res.Error.Code, "%v", res.Error)
			assert.Contains(t, res.Error.Message, "protected")
		})
	}
	res := e.call(t, "edit_file", map[string]any{"path": "vendor/lib/.git/config", "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = x"})
	require.NotNil(t, res.Error, "edit allowed")
	assert.Equal(t, tool.CodeFilesystemPolicy, res.Error.Code)
	res = e.call(t, "delete_file", map[string]any{"path": "vendor/lib/.git/hooks/x"})
	require.NotNil(t, res.Error, "delete allowed")
	got, err := os.ReadFile(filepath.Join(e.dir, "vendor/lib/.git/config"))
	require.NoError(t, err)
	assert.Equal(t, "[core]\n", string(got))
	assert.NoDirExists(t, filepath.Join(e.dir, "a/.hg"), "no half-made directory is left")
	// Reading stays allowed.
	res = e.call(t, "read_file", map[string]any{"path": "vendor/lib/.git/config"})
	assert.True(t, res.OK(), "%v", res.Error)
}

// Issue 14: write_file onto an existing symlink wrote a new file with the
// link's mode (0777 less the umask: 0755). A write through a symlink inside
// the workspace now writes the target and keeps its mode; new files are
// 0644.
func TestWriteFileThroughSymlinkKeepsTargetMode(t *testing.T) {
	e := newEnv(t)
	e.write(t, "conf/app.yaml", "a: 1\n")
	require.NoError(t, os.Chmod(filepath.Join(e.dir, "conf/app.yaml"), 0o640))
	require.NoError(t, os.Symlink("conf/app.yaml", filepath.Join(e.dir, "app.yaml")))
	res := e.call(t, "write_file", map[string]any{"path": "app.yaml", "content": "a: 2\n"})
	require.True(t, res.OK(), "%v", res.Error)
	fi, err := os.Lstat(filepath.Join(e.dir, "app.yaml"))
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, fi.Mode().Type(), "the link stays a link")
	fi, err = os.Stat(filepath.Join(e.dir, "conf/app.yaml"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "the target keeps its mode")
	got, _ := os.ReadFile(filepath.Join(e.dir, "conf/app.yaml"))
	assert.Equal(t, "a: 2\n", string(got))
	assert.Equal(t, "conf/app.yaml", res.Metadata[builtin.MetaPath])

	// A link to a file not there yet: the target is created, 0644.
	require.NoError(t, os.Symlink("conf/new.yaml", filepath.Join(e.dir, "new.yaml")))
	res = e.call(t, "write_file", map[string]any{"path": "new.yaml", "content": "b: 1\n"})
	require.True(t, res.OK(), "%v", res.Error)
	fi, err = os.Stat(filepath.Join(e.dir, "conf/new.yaml"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	res = e.call(t, "write_file", map[string]any{"path": "plain.txt", "content": "c\n"})
	require.True(t, res.OK(), "%v", res.Error)
	fi, err = os.Stat(filepath.Join(e.dir, "plain.txt"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), "new files are 0644")
}

// The file tools declare their path argument in the schema
// (sandbox.PathKeyword, from the toolbelt:"path" tag), which is how the
// policy and approval rules find it; and they name their workspace.
func TestFileToolsDeclarePathArguments(t *testing.T) {
	e := newEnv(t)
	for _, spec := range e.reg.List(registry.Filter{}) {
		entry, ok := e.reg.Lookup(spec.Name)
		require.True(t, ok)
		assert.Equal(t, []string{"path"}, sandbox.PathArguments(entry.Spec.InputSchema), entry.Spec.Name)
		wt, ok := entry.Tool.(interface{ Workspace() *sandbox.Workspace })
		require.True(t, ok, entry.Spec.Name)
		assert.Same(t, e.ws, wt.Workspace())
	}
}

// Issue 14, end to end through the executor and the approval extension:
// write_file(docs/**) auto-approved "docs/../src.go", and "./secrets/key"
// escaped read_file(secrets/**). The asked approver denies, so only calls
// the rules allow run.
func TestApprovalRulesMatchResolvedPaths(t *testing.T) {
	dir := t.TempDir()
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	require.NoError(t, os.MkdirAll(filepath.Join(ws.Dir(), "docs"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(ws.Dir(), "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws.Dir(), "secrets", "key"), []byte("k"), 0o600))
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	pol := approval.MustPolicy(approval.ModeAlwaysAsk, approval.DenyRules("read_file(secrets/**)"), approval.AllowRules("write_file(docs/**)"))
	nobody := approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		return approval.Denied("test", "nobody approves"), nil
	})
	gate := approvalgate.New(nobody, approvalgate.WithPolicy(pol))
	ex := executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
	run := func(name string, args map[string]any) *tool.Result {
		b, _ := json.Marshal(args)
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "1", Name: name, Args: b})
		return res
	}
	res := run("write_file", map[string]any{"path": "./docs/a.md", "content": "x"})
	assert.True(t, res.OK(), "%v", res.Error)
	res = run("write_file", map[string]any{"path": "docs/../src.go", "content": "x"})
	assert.Equal(t, tool.CodeApprovalDenied, code(res), "%v", res.Error)
	assert.NoFileExists(t, filepath.Join(ws.Dir(), "src.go"))
	for _, p := range []string{"./secrets/key", filepath.Join(ws.Dir(), "secrets/key"), "docs/../secrets/key"} {
		res = run("read_file", map[string]any{"path": p})
		require.NotNil(t, res.Error, p)
		assert.Contains(t, res.Error.Message, "deny read_file(secrets/**)", "refused by the deny rule, not merely asked about: %s", p)
	}
}
