package policy_test

import (
	"context"
	"net/url"
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
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// renamed is a tool under another name over a tool it runs (a tool file's
// go tool over a Loader.Funcs entry is one), which it exposes with Unwrap.
type renamed struct {
	tool.Tool
	name string
}

func (r *renamed) Spec() tool.Spec {
	s := r.Tool.Spec()
	s.Name = r.name
	return s
}

func (r *renamed) Unwrap() tool.Tool { return r.Tool }

// A tool's rules held only for calls under its own name: the same
// write_file registered again as "save" (a tool file's go tool naming it)
// wrote in lockdown, where tools.write_file.forbidden_in_modes refuses it,
// and wrote under the tool's forbidden_paths, and a mode change did not
// stop a call of it in progress. The rules of every tool a call runs
// (through Unwrap) hold for it.
func TestAttackS13ToolRulesHoldUnderAnotherName(t *testing.T) {
	dir := t.TempDir()
	p, err := policy.Parse([]byte(`
tools:
  write_file:
    forbidden_in_modes: [lockdown]
    forbidden_paths: ["` + dir + `/locked/**"]
  save: {}
`))
	require.NoError(t, err)
	type in struct {
		Path string `json:"path" toolbelt:"path"`
	}
	started, release := make(chan struct{}, 1), make(chan struct{})
	write := tool.Func("write_file", "Write a file", func(ctx context.Context, a in) (string, error) {
		if strings.HasSuffix(a.Path, "slow") {
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		return "written", os.WriteFile(a.Path, []byte("x"), 0o600)
	})
	reg := registry.New()
	require.NoError(t, reg.Register(write))
	require.NoError(t, reg.Register(&renamed{Tool: write, name: "save"}))
	ex := executor.MustNew(reg, executor.WithExtensions(p))

	res := callRaw(t, ex, "save", `{"path": "`+dir+`/locked/x"}`)
	if assert.NotNil(t, res.Error, "save wrote under write_file's forbidden path") {
		assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
	}
	assert.NoFileExists(t, filepath.Join(dir, "locked", "x"))

	// A call in progress when the mode becomes lockdown is stopped.
	done := make(chan *tool.Result, 1)
	go func() { done <- callRaw(t, ex, "save", `{"path": "`+dir+`/slow"}`) }()
	<-started
	require.NoError(t, p.SetMode("lockdown"))
	// release only if the mode change did not stop the call: released at
	// once, the tool's select could pick release over its cancelled
	// context and write (3 runs in 900 under -race).
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		close(release)
		res = <-done
	}
	if assert.NotNil(t, res.Error, "save ran on into lockdown") {
		assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
	}
	assert.NoFileExists(t, filepath.Join(dir, "slow"))

	res = callRaw(t, ex, "save", `{"path": "`+dir+`/y"}`)
	if assert.NotNil(t, res.Error, "save wrote in lockdown") {
		assert.Equal(t, "tools.write_file.forbidden_in_modes", res.Metadata[policy.MetaRule], "%v", res.Error)
	}
	assert.NoFileExists(t, filepath.Join(dir, "y"))

	// Twin: in normal mode, outside the forbidden path, save writes.
	require.NoError(t, p.SetMode("normal"))
	res = callRaw(t, ex, "save", `{"path": "`+dir+`/z"}`)
	assert.Nil(t, res.Error, "%v", res.Error)
}

// A tool that opens URLs (a browser's navigate, a fetch tool that takes
// file: URLs) reads a local file for file:///HOME/.ssh/id, which no path
// argument names: the policy judged only path arguments, so
// forbidden_paths **/.ssh/** let the key be read through a url argument,
// in any case of the scheme, with localhost as the host, percent-encoded,
// or in a list.
func TestAttackS13FileURLInAnArgument(t *testing.T) {
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	key := filepath.Join(home, ".ssh", "id")
	require.NoError(t, os.WriteFile(key, []byte(sshSecret), 0o600))
	p, err := policy.Parse([]byte(sshGovernance))
	require.NoError(t, err)
	type in struct {
		URL  string   `json:"url"`
		More []string `json:"more,omitempty"`
	}
	reg := registry.New()
	require.NoError(t, reg.Register(tool.Func("navigate", "Open a page", func(_ context.Context, a in) (string, error) {
		var out string
		for _, s := range append([]string{a.URL}, a.More...) {
			u, err := url.Parse(strings.TrimSpace(s))
			if err != nil || !strings.EqualFold(u.Scheme, "file") {
				out += "remote page "
				continue
			}
			b, err := os.ReadFile(u.Path)
			if err != nil {
				return "", err
			}
			out += string(b)
		}
		return out, nil
	})))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for _, args := range []string{
		`{"url": "file://` + key + `"}`,
		`{"url": "FILE://` + key + `"}`,
		`{"url": "file://localhost` + key + `"}`,
		`{"url": "file:` + key + `"}`,
		`{"url": " file://` + strings.Replace(key, ".ssh", "%2Essh", 1) + `"}`,
		`{"url": "\u0066ile://` + key + `"}`,
		`{"url": "https://example.com/", "more": ["file://` + key + `"]}`,
	} {
		res := callRaw(t, ex, "navigate", args)
		assert.NotContains(t, resultText(res), sshSecret, args)
		if assert.NotNil(t, res.Error, "%s ran: %s", args, resultText(res)) {
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%s: %v", args, res.Error)
		}
	}
	// Twins: a web page whose path names .ssh, a file: URL elsewhere.
	require.NoError(t, os.WriteFile(filepath.Join(home, "page"), []byte("page"), 0o644))
	for _, args := range []string{
		`{"url": "https://example.com/.ssh/id"}`,
		`{"url": "file://` + filepath.Join(home, "page") + `"}`,
	} {
		res := callRaw(t, ex, "navigate", args)
		assert.Nil(t, res.Error, "%s: %v", args, res.Error)
	}
	// A file's content that begins with a file: URL is text, not a place.
	ws, err := sandbox.OpenWorkspace(t.TempDir(), sandbox.WithHide(p.Hide))
	require.NoError(t, err)
	defer ws.Close()
	files := registry.New()
	require.NoError(t, files.Register(builtin.Files(ws)...))
	res := callRaw(t, executor.MustNew(files, executor.WithExtensions(p)), "write_file",
		`{"path": "note.md", "content": "file://`+key+` is where the key lives"}`)
	assert.Nil(t, res.Error, "%v", res.Error)
}

// max_field_bytes counted a value that is not a string (a list of lines,
// an object of files) by its JSON as sent, where a byte of invalid UTF-8
// inside its strings decodes to U+FFFD, three bytes: a 100-byte limit on
// lines let 180 bytes through. A string value was already counted so.
func TestAttackS13FieldSizeOfAListWithInvalidUTF8(t *testing.T) {
	p, err := policy.Parse([]byte(`global: {max_field_bytes: {lines: 100}}`))
	require.NoError(t, err)
	type in struct {
		Lines []string `json:"lines"`
	}
	var got int
	reg := registry.New()
	require.NoError(t, reg.Register(tool.Func("append_lines", "Append lines", func(_ context.Context, a in) (string, error) {
		got = len(strings.Join(a.Lines, ""))
		return "ok", nil
	})))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	res := callRaw(t, ex, "append_lines", `{"lines": ["`+strings.Repeat("\xff", 30)+`", "`+strings.Repeat("\xff", 30)+`"]}`)
	if assert.NotNil(t, res.Error, "the tool read %d bytes", got) {
		assert.Equal(t, "global.max_field_bytes", res.Metadata[policy.MetaRule], "%v", res.Error)
	}
	// Twins: valid UTF-8 and escapes are counted as sent.
	res = callRaw(t, ex, "append_lines", `{"lines": ["`+strings.Repeat("\u00e9", 40)+`"]}`)
	assert.Nil(t, res.Error, "%v", res.Error)
	res = callRaw(t, ex, "append_lines", `{"lines": ["`+strings.Repeat(`\u0041`, 15)+`"]}`)
	assert.Nil(t, res.Error, "%v", res.Error)
}

// A tool without a workspace that expands a leading ~ or environment
// variables in its path (the MCP filesystem server expands "~/", a Go
// tool os.ExpandEnv) read HOME/.ssh/id for "~/.ssh/id" and
// "$HOME/.ssh/id": the policy judged the path as written, relative to the
// working directory, so forbidden_paths $HOME/.ssh/** did not hold and an
// allowed_paths under the working directory took it for one of its own.
func TestAttackS13HomeAndVariablesInAPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KEYDIR", home+"/.ssh")
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id"), []byte(sshSecret), 0o600))
	wd, err := os.Getwd()
	require.NoError(t, err)
	p, err := policy.Parse([]byte(`
global:
  forbidden_paths: ["$HOME/.ssh/**"]
tools:
  read_here:
    allowed_paths: ["` + wd + `/**"]
`))
	require.NoError(t, err)
	type in struct {
		Path string `json:"path" toolbelt:"path"`
	}
	// Reads as such a tool does: ~ and $VAR expanded.
	read := func(_ context.Context, a in) (string, error) {
		path := a.Path
		if rest, ok := strings.CutPrefix(path, "~/"); ok {
			path = filepath.Join(home, rest)
		}
		b, err := os.ReadFile(os.ExpandEnv(path))
		return string(b), err
	}
	reg := registry.New()
	require.NoError(t, reg.Register(tool.Func("read_any", "Read a file", read)))
	require.NoError(t, reg.Register(tool.Func("read_here", "Read a file here", read)))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for _, tc := range []struct{ name, path string }{
		{"read_any", "~/.ssh/id"},
		{"read_any", "$HOME/.ssh/id"},
		{"read_any", "${KEYDIR}/id"},
		{"read_here", "~/.ssh/id"},
		{"read_here", "$HOME/x"},
	} {
		res := callRaw(t, ex, tc.name, `{"path": "`+tc.path+`"}`)
		assert.NotContains(t, resultText(res), sshSecret, tc.path)
		if assert.NotNil(t, res.Error, "%s %s ran: %s", tc.name, tc.path, resultText(res)) {
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%s %s: %v", tc.name, tc.path, res.Error)
		}
	}
	// Twin: a path with neither is judged as before (it is not there).
	res := callRaw(t, ex, "read_here", `{"path": "no-such-file"}`)
	require.NotNil(t, res.Error)
	assert.NotEqual(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
}

// A path tagged `toolbelt:"path"` inside a nested struct is declared in the
// schema (x-toolbelt-path under the object's properties), but the rules
// read only the top-level arguments: a copy tool's options.backup, or a
// hand-written schema's path inside a list of objects, named
// HOME/.ssh/id past forbidden_paths **/.ssh/** and outside
// allowed_paths, and the tool read it.
func TestAttackS13NestedDeclaredPath(t *testing.T) {
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	key := filepath.Join(home, ".ssh", "id")
	require.NoError(t, os.WriteFile(key, []byte(sshSecret), 0o600))
	work := filepath.Join(home, "work")
	require.NoError(t, os.MkdirAll(work, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "a"), []byte("a"), 0o644))

	p, err := policy.Parse([]byte(`
global:
  forbidden_paths: ["**/.ssh/**"]
tools:
  cat_two:
    allowed_paths: ["` + work + `/**"]
`))
	require.NoError(t, err)
	type options struct {
		Backup string `json:"backup,omitempty" toolbelt:"path"`
	}
	type in struct {
		Path    string   `json:"path" toolbelt:"path"`
		Options *options `json:"options,omitempty"`
	}
	read := func(paths ...string) (string, error) {
		var out string
		for _, p := range paths {
			if p == "" {
				continue
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return "", err
			}
			out += string(b)
		}
		return out, nil
	}
	catTwo := tool.Func("cat_two", "Print a file and its backup", func(_ context.Context, a in) (string, error) {
		backup := ""
		if a.Options != nil {
			backup = a.Options.Backup
		}
		return read(a.Path, backup)
	})
	// A hand-written schema that marks the path inside a list's objects.
	catMany := tool.New("cat_many", "Print files", func(_ context.Context, c tool.Call) (*tool.Result, error) {
		return &tool.Result{Content: []tool.Content{tool.TextContent("ran " + string(c.Args))}}, nil
	}, tool.WithInputSchema([]byte(`{"type":"object","properties":{"files":{"type":"array","items":{
		"type":"object","properties":{"name":{"type":"string","x-toolbelt-path":true}}}}}}`)))
	reg := registry.New()
	require.NoError(t, reg.Register(catTwo))
	require.NoError(t, reg.Register(catMany))
	ex := executor.MustNew(reg, executor.WithExtensions(p))

	for _, tc := range []struct {
		name, args string
		code       tool.Code
	}{
		{"cat_two", `{"path": "` + work + `/a", "options": {"backup": "` + key + `"}}`, tool.CodePolicyDenied},
		{"cat_two", `{"path": "` + work + `/a", "options": {"backup": "` + home + `/.bashrc"}}`, tool.CodePolicyDenied},
		{"cat_many", `{"files": [{"name": "` + work + `/a"}, {"name": "` + key + `"}]}`, tool.CodePolicyDenied},
		// Validation refuses a key naming a declared property in another
		// case before the policy sees it (ff6ed79).
		{"cat_many", `{"files": [{"NAME": "` + key + `"}]}`, tool.CodeInvalidArguments},
	} {
		res := callRaw(t, ex, tc.name, tc.args)
		assert.NotContains(t, resultText(res), sshSecret, tc.args)
		if assert.NotNil(t, res.Error, "%s ran: %s", tc.args, resultText(res)) {
			assert.Equal(t, tc.code, res.Error.Code, "%s: %v", tc.args, res.Error)
		}
	}
	// Harmless twins run.
	for _, tc := range []struct{ name, args string }{
		{"cat_two", `{"path": "` + work + `/a", "options": {"backup": "` + work + `/a"}}`},
		{"cat_two", `{"path": "` + work + `/a"}`},
		{"cat_many", `{"files": [{"name": "` + work + `/a"}]}`},
	} {
		res := callRaw(t, ex, tc.name, tc.args)
		assert.Nil(t, res.Error, "%s: %v", tc.args, res.Error)
	}
}
