package policy_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/registry/loader"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

const sshSecret = "SSH-PRIVATE-KEY-0815"

const sshGovernance = `global: {forbidden_paths: ["**/.ssh/**", "/etc/**", "**/.env"]}`

func callRaw(t *testing.T, ex *executor.Executor, name, args string) *tool.Result {
	t.Helper()
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: json.RawMessage(args)})
	require.NotNil(t, res)
	return res
}

// encoding/json matches object keys to struct fields case-insensitively,
// so a built-in tool would read "Path" or "PATH" as its path argument,
// which the policy (matching "path" exactly) does not judge. What stops
// it is the built-in tools' schemas, which refuse unknown properties
// (additionalProperties: false) before the policy runs: a guard for that.
func TestPathUnderAnotherCaseOfItsKeyIsRefused(t *testing.T) {
	p, err := policy.Parse([]byte(sshGovernance))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".ssh", "id"), []byte(sshSecret+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "public.txt"), []byte("public\n"), 0o644))
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithSecrets(), sandbox.WithHide(p.Hide))
	require.NoError(t, err)
	defer ws.Close()
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for _, args := range []string{
		`{"Path": ".ssh/id"}`,
		`{"path": "public.txt", "PATH": ".ssh/id"}`,
		`{"path": "public.txt", "pAth": ".ssh/id"}`,
	} {
		res := callRaw(t, ex, "read_file", args)
		assert.NotContains(t, resultText(res), sshSecret, args)
		require.NotNil(t, res.Error, "read allowed: %s", args)
	}
	res := callRaw(t, ex, "read_file", `{"path": "public.txt"}`)
	require.Nil(t, res.Error, "%v", res.Error)
}

// A declared path argument left out is judged as the workspace root, so
// that list_directory and search_files without a path cannot reach what
// the tool's own forbidden_paths name; arguments sent as nothing at all
// must be judged the same way as {} (the executor refuses null, and makes
// no bytes {}; the policy reads both as {} itself, since Evaluate and
// JudgeArgs take arguments from elsewhere: JudgeArgs let "", " " and
// null through before).
func TestArgumentsLeftOutEntirelyAreJudgedAsTheRoot(t *testing.T) {
	p, err := policy.Parse([]byte(`
tools:
  list_directory: {forbidden_paths: [".ssh/**"]}
  search_files: {forbidden_paths: [".ssh/**"]}
`))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".ssh", "id"), []byte(sshSecret+"\n"), 0o600))
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithHide(p.Hide), sandbox.WithSecrets())
	require.NoError(t, err)
	defer ws.Close()
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for _, args := range []string{"", "null", "{}", " { } "} {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "list_directory", Args: json.RawMessage(args)})
		require.NotNil(t, res)
		assert.NotContains(t, res.Text(), "id", "list_directory %q listed .ssh/id", args)
		if assert.NotNil(t, res.Error, "list_directory %q: %s", args, res.Text()) && args != "null" {
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%q: %v", args, res.Error)
		}
	}
	spec, ok := reg.Lookup("list_directory")
	require.True(t, ok)
	for _, args := range []string{"", "null", " "} {
		err := p.JudgeArgs(tool.Call{Name: "list_directory", Args: json.RawMessage(args)}, spec.Tool, &spec.Spec)
		assert.ErrorIs(t, err, tool.ErrPolicyDenied, "JudgeArgs %q", args)
	}
}

// A tool file's go tool that names a built-in file tool under another name
// (cat_file, function: read_file) wraps it, and the wrapper has no
// Workspace method: the policy matched its path as written, so keys/id
// (keys -> .ssh) read .ssh/id past "**/.ssh/**".
func TestToolFileAliasOfAFileToolIsResolvedInItsWorkspace(t *testing.T) {
	p, err := policy.Parse([]byte(sshGovernance))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".ssh", "id"), []byte(sshSecret+"\n"), 0o600))
	require.NoError(t, os.Symlink(".ssh", filepath.Join(dir, "keys")))
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithSecrets())
	require.NoError(t, err)
	defer ws.Close()
	reg := registry.New()
	ld := loader.Loader{Funcs: loader.FuncTable(builtin.ReadFile(ws))}
	require.NoError(t, ld.Load(reg, strings.NewReader(`
tools:
  - name: cat_file
    description: Show a file
    type: go
    implementation: {function: read_file}
`), "tools.yaml"))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for _, path := range []string{"keys/id", "./keys/../keys/id"} {
		res := callRaw(t, ex, "cat_file", `{"path": "`+path+`"}`)
		assert.NotContains(t, resultText(res), sshSecret, path)
		if assert.NotNil(t, res.Error, path) {
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%s: %v", path, res.Error)
		}
	}
}

// $VAR and ~ in a pattern stand for a path; a path holding "[", "{", "*"
// or "?" ("Projects [2024]") was read as a glob, so "$PROJECT/secrets/**"
// matched nothing of the project and read_file returned secrets/key.
func TestPatternVariableHoldingGlobCharactersIsLiteral(t *testing.T) {
	for _, name := range []string{"Projects [2024]", "a{b,c}", "star*", "what?"} {
		t.Run(name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			project := filepath.Join(root, name)
			require.NoError(t, os.MkdirAll(filepath.Join(project, "secrets"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(project, "secrets", "key"), []byte(sshSecret+"\n"), 0o600))
			require.NoError(t, os.WriteFile(filepath.Join(project, "readme.md"), []byte("readme\n"), 0o644))
			env := func(k string) (string, bool) {
				switch k {
				case "PROJECT":
					return project, true
				case "HOME":
					return project, true
				}
				return "", false
			}
			for _, pattern := range []string{"$PROJECT/secrets/**", "${PROJECT}/secrets", "~/secrets/key"} {
				p, err := policy.Parse([]byte(`global: {forbidden_paths: ["`+pattern+`"]}`), policy.WithEnv(env))
				require.NoError(t, err)
				ws, err := sandbox.OpenWorkspace(project, sandbox.WithHide(p.Hide), sandbox.WithSecrets())
				require.NoError(t, err)
				reg := registry.New()
				require.NoError(t, reg.Register(builtin.Files(ws)...))
				ex := executor.MustNew(reg, executor.WithExtensions(p))
				res := callRaw(t, ex, "read_file", `{"path": "secrets/key"}`)
				assert.NotContains(t, resultText(res), sshSecret, pattern)
				assert.NotNil(t, res.Error, pattern)
				res = callRaw(t, ex, "read_file", `{"path": "readme.md"}`)
				assert.Nil(t, res.Error, "%s: %v", pattern, res.Error)
				ws.Close()
			}
		})
	}
}

// An absolute pattern written with the path the operator knows
// ($PROJECT/secrets/**), where $PROJECT passes a symlink (a home on
// /home -> /data/home, macOS's /tmp -> /private/tmp): the workspace's
// directory is symlink-free, so the pattern matched none of its paths and
// read_file, list_directory and search_files reached secrets/key.
func TestAbsolutePatternThroughASymlinkedWorkspaceDir(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	real := filepath.Join(root, "real")
	require.NoError(t, os.MkdirAll(filepath.Join(real, "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(real, "secrets", "key"), []byte(sshSecret+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(real, "readme.md"), []byte("readme\n"), 0o644))
	linked := filepath.Join(root, "linked")
	require.NoError(t, os.Symlink(real, linked))
	env := func(k string) (string, bool) {
		if k == "PROJECT" {
			return linked, true
		}
		return "", false
	}
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["$PROJECT/secrets/**"]}`), policy.WithEnv(env))
	require.NoError(t, err)
	ws, err := sandbox.OpenWorkspace(linked, sandbox.WithHide(p.Hide), sandbox.WithSecrets())
	require.NoError(t, err)
	defer ws.Close()
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for _, c := range []struct{ name, args string }{
		{"read_file", `{"path": "secrets/key"}`},
		{"read_file", `{"path": "` + filepath.Join(linked, "secrets", "key") + `"}`},
		{"list_directory", `{"path": ".", "depth": 3}`},
		{"search_files", `{"pattern": "SSH-PRIVATE"}`},
	} {
		res := callRaw(t, ex, c.name, c.args)
		assert.NotContains(t, resultText(res), sshSecret, "%s %s", c.name, c.args)
		if c.name == "list_directory" {
			assert.NotContains(t, res.Text(), "key", "listed: %s", res.Text())
		}
	}
	res := callRaw(t, ex, "read_file", `{"path": "readme.md"}`)
	require.Nil(t, res.Error, "%v", res.Error)
}

// A tool whose schema leaves other properties open (as an imported MCP
// tool's may) and decodes its arguments with encoding/json, as a Go
// server does: "Path", "PATH" or "ſize" name its path and size fields,
// which the policy matched only exactly ("path", "content"). Where the
// schema names the property, validation refuses the twin key before the
// policy sees it (ff6ed79); where it names none, the policy judges it.
func TestArgumentKeyInAnotherCaseIsJudged(t *testing.T) {
	p, err := policy.Parse([]byte(`
global:
  forbidden_paths: ["**/.ssh/**"]
  max_field_bytes: {content: 10, dest: 10}
`))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".ssh", "id"), []byte(sshSecret), 0o600))
	type in struct {
		Path    string `json:"path"`
		Content string `json:"content"`
		Dest    string `json:"dest"`
	}
	for _, c := range []struct {
		schema string
		code   tool.Code // the refusal of a twin key
	}{
		{`{"type":"object"}`, tool.CodePolicyDenied},
		{`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"dest":{"type":"string"}}}`, tool.CodeInvalidArguments},
	} {
		var got in
		fsTool := tool.New("fs_read", "Read a file",
			func(_ context.Context, c tool.Call) (*tool.Result, error) {
				got = in{}
				if err := json.Unmarshal(c.Args, &got); err != nil {
					return nil, err
				}
				if got.Path == "" {
					return &tool.Result{Content: []tool.Content{tool.TextContent("no path")}}, nil
				}
				b, err := os.ReadFile(filepath.Join(dir, got.Path))
				if err != nil {
					return nil, err
				}
				return &tool.Result{Content: []tool.Content{tool.TextContent(string(b))}}, nil
			},
			tool.WithInputSchema(json.RawMessage(c.schema)))
		reg := registry.New()
		require.NoError(t, reg.Register(fsTool))
		ex := executor.MustNew(reg, executor.WithExtensions(p))
		for _, args := range []string{
			`{"Path": ".ssh/id"}`,
			`{"path": "x", "PATH": ".ssh/id"}`,
			`{"content": "short", "Content": "far more than ten bytes"}`,
			`{"dest": "short", "DEſT": "far more than ten bytes"}`,
		} {
			res := callRaw(t, ex, "fs_read", args)
			assert.NotContains(t, resultText(res), sshSecret, args)
			if assert.NotNil(t, res.Error, "%s ran with %+v", args, got) {
				assert.Equal(t, c.code, res.Error.Code, "%s: %v", args, res.Error)
			}
		}
		res := callRaw(t, ex, "fs_read", `{"Content": "short"}`)
		if c.code == tool.CodePolicyDenied {
			require.Nil(t, res.Error, "%v", res.Error)
		} else if assert.NotNil(t, res.Error) {
			assert.Contains(t, res.Error.Message, `send it as "content"`)
		}
	}
}

// max_arg_bytes counted the arguments as sent; a byte of invalid UTF-8 in
// a JSON string decodes to U+FFFD, three bytes, so write_file wrote 450
// bytes under a 200-byte limit. Escapes ("\u0041", 6 bytes for 1) only
// shrink and stay counted as sent.
func TestMaxArgBytesHoldsForWhatTheToolReads(t *testing.T) {
	p, err := policy.Parse([]byte(`global: {max_arg_bytes: 200}`))
	require.NoError(t, err)
	dir := t.TempDir()
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	res := callRaw(t, ex, "write_file", `{"path": "big.txt", "content": "`+strings.Repeat("\xff", 150)+`"}`)
	require.NotNil(t, res.Error, "written: %s", resultText(res))
	assert.NoFileExists(t, filepath.Join(dir, "big.txt"))
	assert.Equal(t, "global.max_arg_bytes", res.Metadata[policy.MetaRule])
	assert.Contains(t, res.Error.Message, "arguments are 484 bytes, over the 200-byte limit")
	// Valid UTF-8 and escapes count as sent: 150 bytes of é is allowed.
	res = callRaw(t, ex, "write_file", `{"path": "ok.txt", "content": "`+strings.Repeat("\u00e9", 75)+`"}`)
	require.Nil(t, res.Error, "%v", res.Error)
	res = callRaw(t, ex, "write_file", `{"path": "esc.txt", "content": "`+strings.Repeat(`\u0041`, 27)+`"}`)
	require.Nil(t, res.Error, "%v", res.Error)
}

// shellFixture is a project directory holding notes -> HOME/.ssh and
// keys -> ../home/.ssh, with a shell tool show (a stand-in for cat: the
// real cat under that name, the only program on PATH) running in it under
// the process engine, behind the governance with WithBaseDir(project).
// HOME/.ssh/id is the secret.
func shellFixture(t *testing.T, governance string) (ex *executor.Executor, project, home string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	project, home, bin := filepath.Join(root, "project"), filepath.Join(root, "home"), filepath.Join(root, "bin")
	for _, d := range []string{project, filepath.Join(home, ".ssh"), bin} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id"), []byte(sshSecret+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(project, "readme.md"), []byte("readme\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(project, "notes")))
	require.NoError(t, os.Symlink("../home/.ssh", filepath.Join(project, "keys")))
	cat, err := filepath.EvalSymlinks("/bin/cat")
	require.NoError(t, err)
	require.NoError(t, os.Symlink(cat, filepath.Join(bin, "show")))
	sb, err := sandbox.New("process", sandbox.WithWorkspace(project),
		sandbox.WithLimits(sandbox.Limits{Timeout: 20 * time.Second, OutputBytes: 1 << 20}))
	require.NoError(t, err)
	show, err := shell.NewCommand("show", "Show a file", sb, []string{"show", "--", "{path}"},
		shell.WithEnv("PATH="+bin, "HOME="+home))
	require.NoError(t, err)
	p, err := policy.Parse([]byte(governance), policy.WithBaseDir(project))
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(show))
	return executor.MustNew(reg, executor.WithExtensions(p)), project, home
}

// A shell tool's path argument, judged against the base directory it runs
// in (WithBaseDir): "**/.ssh/**" must hold for an absolute path outside
// that directory and for a symlink in it that leads to .ssh, and
// allowed_paths ["**"] (everything in the project) must not let a symlink
// lead out of it. All four read HOME/.ssh/id before.
func TestShellToolPathOutsideTheBaseDirOrThroughASymlink(t *testing.T) {
	for _, tc := range []struct {
		governance, rule string
	}{
		{sshGovernance, "global.forbidden_paths"},
		{`global: {allowed_paths: ["**"]}`, "global.allowed_paths"},
	} {
		t.Run(tc.governance, func(t *testing.T) {
			ex, project, home := shellFixture(t, tc.governance)
			res := callRaw(t, ex, "show", `{"path": "readme.md"}`)
			require.Nil(t, res.Error, "%v", res.Error)
			assert.Contains(t, res.Text(), "readme")
			res = callRaw(t, ex, "show", `{"path": "notes/../../project/readme.md"}`)
			require.Nil(t, res.Error, "through the link and back into the project: %v", res.Error)
			for _, p := range []string{
				filepath.Join(home, ".ssh", "id"),
				filepath.Join(project, "notes", "id"),
				"notes/id",
				"./keys/./id",
				"keys/../.ssh/id",
			} {
				b, _ := json.Marshal(map[string]string{"path": p})
				res := callRaw(t, ex, "show", string(b))
				assert.NotContains(t, resultText(res), sshSecret, p)
				require.NotNil(t, res.Error, "read allowed: %s", p)
				assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%s: %v", p, res.Error)
				assert.Equal(t, tc.rule, res.Metadata[policy.MetaRule], p)
			}
		})
	}
}
