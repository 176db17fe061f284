package loader_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/registry/loader"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

type readArgs struct {
	Path string `json:"path"`
}

func readFile(_ context.Context, in readArgs) (string, error) { return "contents of " + in.Path, nil }

// shellRecorder is a stand-in "shell" factory: it records the command the
// loader hands it (as shell.Kind reads it: a template or a list), and runs
// nothing.
type shellRecorder struct{ argv map[string][]string }

func (s *shellRecorder) kind(spec tool.Spec, impl json.RawMessage) (tool.Tool, error) {
	var cfg struct {
		Command json.RawMessage `json:"command"`
		Workdir string          `json:"workdir"`
	}
	if err := json.Unmarshal(impl, &cfg); err != nil {
		return nil, err
	}
	var argv []string
	var tmpl string
	if json.Unmarshal(cfg.Command, &tmpl) == nil {
		var err error
		if argv, err = shell.ParseCommandTemplate(tmpl); err != nil {
			return nil, &tool.ConfigError{Field: "command", Message: strings.TrimPrefix(err.Error(), "command template ")}
		}
	} else if err := json.Unmarshal(cfg.Command, &argv); err != nil {
		return nil, &tool.ConfigError{Field: "command", Message: "must be a string or a list"}
	}
	s.argv[spec.Name] = argv
	return &fakeShell{spec: spec, text: strings.Join(argv, " ") + " @" + cfg.Workdir}, nil
}

type fakeShell struct {
	spec tool.Spec
	text string
}

func (f *fakeShell) Spec() tool.Spec { return f.spec }
func (f *fakeShell) Run(context.Context, tool.Call) (*tool.Result, error) {
	return &tool.Result{Content: []tool.Content{tool.TextContent(f.text)}}, nil
}

func newLoader(sh *shellRecorder, opts ...httptool.Option) *loader.Loader {
	kinds := map[string]loader.KindFunc{"http": httptool.Kind(opts...)}
	if sh != nil {
		kinds["shell"] = sh.kind
	}
	return &loader.Loader{
		Funcs: loader.FuncTable(tool.Func("read_file", "Go description", readFile)),
		Kinds: kinds,
	}
}

func problems(t *testing.T, err error) []string {
	t.Helper()
	var le *loader.LoadError
	require.True(t, errors.As(err, &le), "want *LoadError, got %v", err)
	out := make([]string, len(le.Problems))
	for i, p := range le.Problems {
		out[i] = p.String()
	}
	return out
}

func TestLoadBrokenFiles(t *testing.T) {
	cases := []struct {
		name, file, src string
		want            []string
	}{
		{"root schema not object", "tools.yaml", `tools:
  - name: delete_file
    description: Delete a file
    type: shell
    input_schema:
      type: array
    implementation:
      command: rm -- {path}
`, []string{`tools.yaml:6: tool "delete_file": input_schema.type is "array": the root must be "object"`}},
		{"unknown keys with hints", "tools.yaml", `tools:
  - name: a
    descripton: x
    tool_type: go
    implementation_config: {function: read_file}
    metadata:
      is_dangerous: true
      categroy: files
`, []string{
			`tools.yaml:2: tool "a": description is missing`,
			`tools.yaml:2: tool "a": type is missing: set it to one of go, http, shell`,
			`tools.yaml:3: tool "a": unknown key "descripton": did you mean "description"?`,
			`tools.yaml:4: tool "a": unknown key "tool_type": use "type"`,
			`tools.yaml:5: tool "a": unknown key "implementation_config": use "implementation"`,
			`tools.yaml:7: tool "a": metadata: unknown key "is_dangerous": use risk: high (and requires_approval: true)`,
			`tools.yaml:8: tool "a": metadata: unknown key "categroy": did you mean "category"?`,
		}},
		{"unknown type", "t.yaml", `tools:
  - name: a
    description: d
    type: htp
`, []string{`t.yaml:4: tool "a": type "htp" is not known: did you mean "http"?`}},
		{"kind without factory", "t.yaml", `tools:
  - {name: a, description: d, type: mcp}
`, []string{`t.yaml:2: tool "a": type "mcp" has no factory in this Loader: add it to Loader.Kinds`}},
		{"missing and invalid names, duplicates", "t.yaml", `tools:
  - description: no name
    type: go
  - name: "bad name!"
    description: d
    type: go
  - name: read_file
    type: go
  - name: read_file
    type: go
`, []string{
			`t.yaml:2: tools[0] has no name: give it a name such as "search"`,
			`t.yaml:4: tool "bad name!": tool name "bad name!" is not portable`,
			`t.yaml:9: tool "read_file": is defined twice (first at t.yaml:7): tool names must be unique`,
		}},
		{"bad metadata", "t.yaml", `tools:
  - name: read_file
    type: go
    metadata:
      risk: extreme
      timeout: 30
      allowed_modes: [normal, lockdwn, party]
      rate_limit_per_hour: many
      requires_approval: yes please
      annotations: {readOnlyHint: true}
  - name: b
    type: http
    description: d
    implementation: {url: "https://x.example.com/"}
    metadata: {timeout: 30 seconds, tags: notalist}
`, []string{
			`t.yaml:5: tool "read_file": metadata.risk is "extreme": use low, medium or high`,
			`t.yaml:6: tool "read_file": metadata.timeout 30 has no unit: write "30s"`,
			`t.yaml:7: tool "read_file": metadata.allowed_modes has unknown mode "lockdwn": did you mean "lockdown"?`,
			`t.yaml:7: tool "read_file": metadata.allowed_modes has unknown mode "party": known modes are normal, alert, degraded, lockdown, recovery`,
			`t.yaml:8: tool "read_file": metadata.rate_limit_per_hour is "many"`,
			`t.yaml:9: tool "read_file": metadata.requires_approval is "yes please": write true or false`,
			`t.yaml:10: tool "read_file": metadata.annotations: unknown key "readOnlyHint": use read_only`,
			`t.yaml:15: tool "b": metadata.timeout "30 seconds" is not a duration: write it like "30s"`,
			`t.yaml:15: tool "b": metadata.tags must be a list of strings`,
		}},
		{"go function not in table", "t.yaml", `tools:
  - name: reader
    type: go
    description: d
    implementation:
      function: read_fil
`, []string{`t.yaml:6: tool "reader": go function "read_fil" is not in the function table: did you mean "read_file"?`}},
		{"shell template with a pipe", "t.yaml", `tools:
  - name: grep_logs
    description: d
    type: shell
    implementation:
      command: grep {pattern} /var/log/syslog | head
`, []string{`t.yaml:6: tool "grep_logs": implementation.command: "grep {pattern} /var/log/syslog | head" contains a pipe (|)`}},
		{"shell template with a substitution", "t.yaml", `tools:
  - name: x
    description: d
    type: shell
    implementation: {command: "echo $(whoami)"}
`, []string{`t.yaml:5: tool "x": implementation.command: "echo $(whoami)" contains a command substitution`}},
		{"http without url", "t.yaml", `tools:
  - name: get
    description: d
    type: http
    implementation:
      method: GET
`, []string{`t.yaml:5: tool "get": implementation.url: is missing`}},
		{"http errors at their lines", "t.yaml", `tools:
  - name: get
    description: d
    type: http
    input_schema:
      type: object
      properties: {id: {type: string}}
    implementation:
      url: https://api.example.com/items/{id}
      metod: POST
      query:
        q: "{nope}"
`, []string{
			`t.yaml:9: tool "get": implementation.url: path placeholder {id} must be a required argument`,
			`t.yaml:10: tool "get": implementation.metod: unknown key "metod"`,
		}},
		{"http errors joined", "t.yaml", `tools:
  - name: get
    description: d
    type: http
    implementation:
      url: https://api.example.com/items
      query:
        q: "{nope}"
      auth: {provider: vault}
`, []string{
			`t.yaml:8: tool "get": implementation.query.q: {nope} names no property of the input schema`,
			`t.yaml:9: tool "get": implementation.auth.provider: "vault" is not registered`,
		}},
		{"yaml syntax", "t.yaml", "tools:\n  - name: a\n    b: c: d\n", []string{`t.yaml:3: is not valid YAML: mapping values are not allowed in this context`}},
		{"duplicate yaml key", "t.yaml", "tools:\n  - name: a\n    name: b\n", []string{`t.yaml:3: tool "a": "name" is given twice (first at line 2): keep the one you mean`}},
		{"json syntax", "t.json", "{\n \"tools\": [\n  {\"name\": \"a\",}\n ]\n}\n", []string{`t.json:3: is not valid JSON: invalid character '}'`}},
		{"json structure", "t.json", "{\"tools\": [\n {\"name\": \"a\", \"type\": \"go\", \"input_schema\": {\"type\": \"string\"}}\n]}\n",
			[]string{`t.json:2: tool "a": input_schema.type is "string": the root must be "object"`}},
		{"not a tools file", "t.yaml", "name: x\n", []string{`t.yaml:1: unknown key "name": known keys are tools`, `t.yaml:1: has no tools: list`}},
		{"empty", "t.yaml", "", []string{`t.yaml: is empty`}},
		{"values of the wrong type, also in flow mappings and nested", "t.yaml", `tools:
  - name: a
    description: [not, a, string]
    type: go
    metadata:
      annotations: {read_only: maybe, title: {x: 1}}
      tags: [fs, {b: c}]
      secrets: notalist
      risk: [high]
extra: 1
`, []string{
			`t.yaml:3: tool "a": description must be a string`,
			`t.yaml:6: tool "a": metadata.annotations.read_only is "maybe": write true or false`,
			`t.yaml:6: tool "a": metadata.annotations.title must be a string`,
			`t.yaml:7: tool "a": metadata.tags.1 must be a string`,
			`t.yaml:8: tool "a": metadata.secrets must be a list of strings, such as [a, b]`,
			`t.yaml:9: tool "a": metadata.risk must be a string`,
			`t.yaml:10: unknown key "extra": known keys are tools`,
		}},
		{"a value given by an alias of the wrong kind", "t.yaml", `x: &a {type: object}
tools:
  - name: read_file
    type: go
    metadata: {annotations: {title: *a}}
`, []string{
			`t.yaml:1: unknown key "x": known keys are tools`,
			`t.yaml:1: tool "read_file": metadata.annotations.title must be a string`,
		}},
		{"empty go function", "t.yaml", `tools:
  - name: a
    description: d
    type: go
    implementation: {function: ""}
`, []string{`t.yaml:5: tool "a": implementation.function must name a function of Loader.Funcs`}},
		{"values JSON cannot hold, and a key given twice, in a schema", "t.yaml", `tools:
  - name: a
    description: d
    type: shell
    input_schema:
      type: object
      properties: {n: {type: number, default: .inf}}
    implementation: {command: [ls]}
  - name: b
    description: d
    type: shell
    input_schema: {type: object, properties: {}, properties: {}}
    implementation: {command: [ls]}
`, []string{
			`t.yaml:7: tool "a": input_schema.properties.n.default is .inf: not a number JSON can hold (no .inf or .nan)`,
			`t.yaml:12: tool "b": input_schema: "properties" is given twice (first at line 12): keep the one you mean`,
		}},
		{"keys that are not strings", "t.yaml", `tools:
  - name: a
    [x]: 1
  - name: b
    description: d
    type: shell
    implementation: {command: [ls], env: {{a: 1}: b}}
`, []string{
			`t.yaml:3: tool "a": a key is not a string: write each key as text`,
			`t.yaml:7: tool "b": implementation.env: a key is not a string: write each key as text`,
		}},
		{"strings hidden as !!binary, a rate limit that is not whole", "t.yaml", `tools:
  - name: a
    description: !!binary aGk=
    type: shell
    metadata:
      secrets: [!!binary YXV0aC50b2tlbg==]
      annotations: {title: !!binary aGk=}
      rate_limit_per_hour: 0.5
    implementation: {command: [ls]}
`, []string{
			`t.yaml:3: tool "a": description is !!binary: write the text itself`,
			`t.yaml:6: tool "a": metadata.secrets.0 is !!binary: write the text itself`,
			`t.yaml:7: tool "a": metadata.annotations.title is !!binary: write the text itself`,
			`t.yaml:8: tool "a": metadata.rate_limit_per_hour is "0.5": write a whole number (0 for no limit)`,
		}},
		{"a tag the value does not fit, in a block", "t.yaml", `tools:
  - name: a
    description: d
    type: shell
    implementation: {command: [ls], n: !!int many}
`, []string{
			"t.yaml:5: tool \"a\": implementation.n: cannot decode !!str `many` as a !!int: write a value of that type, or leave the tag out",
		}},
		{"a go tool's implementation that is not a mapping", "t.yaml", `tools:
  - name: read_file
    type: go
    implementation: read_file
`, []string{`t.yaml:4: tool "read_file": implementation must be a mapping (function: name)`}},
		// Seen failing before: the tool was registered with no Go function
		// (its Run panicked) and none of its Go definition's metadata.
		{"a go tool's null implementation", "t.yaml", `tools:
  - name: read_file
    description: d
    type: go
    implementation: ~
`, []string{`t.yaml:5: tool "read_file": implementation must be a mapping (function: name)`}},
		{"a number that is no duration even with a unit", "t.yaml", `tools:
  - name: a
    description: d
    type: shell
    metadata: {timeout: .inf}
    implementation: {command: [ls]}
  - name: b
    description: d
    type: shell
    metadata: {timeout: 1e3}
    implementation: {command: [ls]}
`, []string{
			`t.yaml:5: tool "a": metadata.timeout ".inf" is not a duration: write it like "30s"`,
			`t.yaml:10: tool "b": metadata.timeout "1e3" is not a duration: write it like "30s"`,
		}},
		{"duplicated key in metadata", "t.yaml", `tools:
  - name: a
    description: d
    type: go
    metadata:
      risk: low
      risk: high
`, []string{`t.yaml:7: tool "a": metadata: "risk" is given twice (first at line 6): keep the one you mean`}},
		{"bad schema deep", "t.yaml", `tools:
  - name: a
    description: d
    type: go
    implementation: {function: read_file}
    input_schema:
      type: object
      properties: {n: {type: integr}}
`, []string{`t.yaml:7: tool "a": input_schema: schema does not compile`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg := registry.New()
			require.NoError(t, reg.Register(tool.Func("already", "x", readFile)))
			err := newLoader(&shellRecorder{argv: map[string][]string{}}).Load(reg, strings.NewReader(tc.src), tc.file)
			require.Error(t, err)
			got := problems(t, err)
			all := strings.Join(got, "\n")
			for _, w := range tc.want {
				assert.Contains(t, all, w)
			}
			assert.Equal(t, []string{"already"}, reg.Names(), "a file with any problem registers nothing")
			assert.Contains(t, err.Error(), "nothing was registered")
		})
	}
}

func TestLoadAlreadyRegistered(t *testing.T) {
	reg := registry.New()
	require.NoError(t, reg.Register(tool.Func("read_file", "x", readFile)))
	err := newLoader(nil).Load(reg, strings.NewReader("tools:\n  - {name: other, type: go, implementation: {function: read_file}}\n  - {name: read_file, type: go}\n"), "t.yaml")
	assert.Equal(t, []string{`t.yaml:3: tool "read_file": is already registered in the registry: rename it, or Remove the registered one first`}, problems(t, err))
	assert.Equal(t, []string{"read_file"}, reg.Names())
}

const goodFile = `# Tools of every kind.
tools:
  - name: file_reader
    description: Read file contents
    type: go
    implementation:
      function: read_file
    metadata:
      category: filesystem
      tags: [fs, read]
      risk: low
      timeout: 2s
      allowed_modes: [normal, degraded]
      annotations: {title: Read, read_only: true, idempotent: true}

  - name: dangerous_delete
    description: Delete files
    type: shell
    input_schema:
      type: object
      properties:
        path: {type: string}
      required: [path]
    implementation:
      command: rm -- "{path}" 'a b' c\ d
      workdir: /tmp
    metadata:
      risk: high
      requires_approval: true
      rate_limit_per_hour: 10

  - name: list_tool
    description: Argv given as a list
    type: shell
    implementation:
      command: [ls, -la, "{dir}"]

  - name: list_issues
    description: List a repository's issues
    type: http
    input_schema:
      type: object
      properties:
        owner: {type: string}
        repo: {type: string}
        state: {type: string, enum: [open, closed]}
      required: [owner, repo]
    implementation:
      url: %s/repos/{owner}/{repo}/issues
      query: {state: "{state}"}
      headers: {Accept: application/json}
    metadata:
      version: 1.10
      timeout: 1m30s
`

func TestLoadGoodFileAndExecute(t *testing.T) {
	defer goleak.VerifyNone(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"uri": r.RequestURI, "accept": r.Header.Get("Accept")})
	}))
	defer srv.Close()
	sh := &shellRecorder{argv: map[string][]string{}}
	kind := httptool.NewClient(httptool.WithPrivateHosts("127.0.0.1"))
	defer kind.CloseIdleConnections()
	ld := &loader.Loader{
		Funcs: loader.FuncTable(tool.Func("read_file", "Go description", readFile, tool.ReadOnly(), tool.WithRisk(tool.RiskLow), tool.WithCategory("filesystem"))),
		Kinds: map[string]loader.KindFunc{"http": kind.FromSpec, "shell": sh.kind},
	}
	reg := registry.New()
	require.NoError(t, ld.Load(reg, strings.NewReader(strings.Replace(goodFile, "%s", srv.URL, 1)), "tools.yaml"))
	assert.Equal(t, []string{"file_reader", "dangerous_delete", "list_tool", "list_issues"}, reg.Names())

	fr, _ := reg.Lookup("file_reader")
	assert.Equal(t, "Read file contents", fr.Spec.Description, "the file's description wins")
	assert.JSONEq(t, `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`, string(fr.Spec.InputSchema), "the schema comes from Go when the file has none")
	assert.Equal(t, "filesystem", fr.Spec.Category)
	assert.Equal(t, []string{"fs", "read"}, fr.Spec.Tags)
	assert.Equal(t, 2*time.Second, fr.Spec.Timeout)
	assert.Equal(t, []string{"normal", "degraded"}, fr.Spec.AllowedModes)
	assert.Equal(t, tool.Annotations{Title: "Read", ReadOnly: true, Idempotent: true}, fr.Spec.Annotations)

	del, _ := reg.Lookup("dangerous_delete")
	assert.Equal(t, tool.RiskHigh, del.Spec.Risk)
	assert.True(t, del.Spec.RequiresApproval)
	assert.Equal(t, 10, del.Spec.RateLimitPerHour)
	assert.Equal(t, []string{"rm", "--", "{path}", "a b", "c d"}, sh.argv["dangerous_delete"])
	assert.Equal(t, []string{"ls", "-la", "{dir}"}, sh.argv["list_tool"])
	lt, _ := reg.Lookup("list_tool")
	assert.Equal(t, tool.RiskMedium, lt.Spec.Risk, "a command with no risk in the file is medium, not low")
	assert.Equal(t, tool.RiskLow, fr.Spec.Risk, "a go tool keeps the risk of its Go definition")

	li, _ := reg.Lookup("list_issues")
	assert.Equal(t, "1.10", li.Spec.Version, "version is kept as written, not read as a float")
	assert.Equal(t, 90*time.Second, li.Spec.Timeout)

	// dangerous_delete says requires_approval: an approval extension must
	// be there to ask (without one the executor refuses the call).
	gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		return approval.Approved("test"), nil
	}))
	ex := executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
	ctx := context.Background()
	res, err := ex.Execute(ctx, tool.Call{ID: "1", Name: "file_reader", Args: json.RawMessage(`{"path":"a.txt"}`)})
	require.NoError(t, err)
	assert.Equal(t, "contents of a.txt", res.Text())

	res, err = ex.Execute(ctx, tool.Call{ID: "2", Name: "dangerous_delete", Args: json.RawMessage(`{"path":"x"}`)})
	require.NoError(t, err)
	assert.Equal(t, "rm -- {path} a b c d @/tmp", res.Text(), "other implementation keys reach the factory")

	res, err = ex.Execute(ctx, tool.Call{ID: "3", Name: "list_issues", Args: json.RawMessage(`{"owner":"octo","repo":"a/b","state":"open"}`)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"uri":"/repos/octo/a%2Fb/issues?state=open","accept":"application/json"}`, string(res.Output))

	_, err = ex.Execute(ctx, tool.Call{ID: "4", Name: "list_issues", Args: json.RawMessage(`{"owner":"octo","repo":"r","state":"merged"}`)})
	require.Error(t, err, "the file's schema is enforced")
	assert.True(t, errors.Is(err, tool.ErrInvalidArguments))
	kind.CloseIdleConnections()
	srv.Close()
}

func TestLoadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"tools/a.yaml":   {Data: []byte("tools:\n  - {name: one, type: go, implementation: {function: read_file}}\n")},
		"tools/b.yml":    {Data: []byte("tools:\n  - {name: two, type: go, implementation: {function: read_file}}\n")},
		"tools/c.json":   {Data: []byte(`{"tools": [{"name": "three", "type": "go", "implementation": {"function": "read_file"}}]}`)},
		"tools/notes.md": {Data: []byte("not tools")},
		"dup/a.yaml":     {Data: []byte("tools:\n  - {name: one, type: go, implementation: {function: read_file}}\n")},
		"dup/b.yaml":     {Data: []byte("\ntools:\n  - {name: one, type: go, implementation: {function: read_file}}\n  - {name: two, type: goo, description: d}\n")},
	}
	reg := registry.New()
	ld := newLoader(nil)
	require.NoError(t, ld.LoadFS(reg, fsys, "tools/*.y*ml"))
	require.NoError(t, ld.LoadFS(reg, fsys, "tools/*.json"))
	assert.Equal(t, []string{"one", "two", "three"}, reg.Names())

	reg = registry.New()
	err := ld.LoadFS(reg, fsys, "dup/*.yaml")
	assert.Equal(t, []string{
		`dup/b.yaml:3: tool "one": is defined twice (first at dup/a.yaml:2): tool names must be unique`,
		`dup/b.yaml:4: tool "two": type "goo" is not known: did you mean "go"?`,
	}, problems(t, err))
	assert.Zero(t, reg.Len(), "one bad file registers nothing from any file")

	err = ld.LoadFS(reg, fsys, "nothing/*.yaml")
	assert.Equal(t, []string{"nothing/*.yaml: matches no files"}, problems(t, err))
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "tools.yaml")
	require.NoError(t, os.WriteFile(p, []byte("tools:\n  - {name: one, type: go, implementation: {function: read_file}}\n"), 0o600))
	reg := registry.New()
	require.NoError(t, newLoader(nil).LoadFile(reg, p))
	assert.Equal(t, []string{"one"}, reg.Names())

	err := newLoader(nil).LoadFile(reg, filepath.Join(dir, "missing.yaml"))
	assert.Equal(t, []string{filepath.Join(dir, "missing.yaml") + ": cannot be read: no such file or directory"}, problems(t, err))

	ld := newLoader(nil)
	ld.MaxBytes = 10
	err = ld.LoadFile(registry.New(), p)
	assert.Contains(t, problems(t, err)[0], "is larger than 10 bytes")
}

func TestLoadURL(t *testing.T) {
	defer goleak.VerifyNone(t)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tools.yaml":
			_, _ = io.WriteString(w, "tools:\n  - {name: remote, type: go, implementation: {function: read_file}}\n")
		case "/bad.yaml":
			_, _ = io.WriteString(w, "tools:\n  - {name: remote, type: og}\n")
		case "/big.yaml":
			_, _ = io.WriteString(w, strings.Repeat("#", 5000))
		case "/slow.yaml":
			select {
			case <-r.Context().Done():
			case <-release:
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx := context.Background()
	ld := newLoader(nil)
	ld.Client = srv.Client()
	defer srv.Client().CloseIdleConnections()

	reg := registry.New()
	require.NoError(t, ld.LoadURL(ctx, reg, srv.URL+"/tools.yaml"))
	assert.Equal(t, []string{"remote"}, reg.Names())

	for _, tc := range []struct{ path, want string }{
		{"/bad.yaml", srv.URL + `/bad.yaml:2: tool "remote": type "og" is not known: did you mean "go"?`},
		{"/missing.yaml", srv.URL + "/missing.yaml: cannot be fetched: the server answered 404 Not Found"},
		{"/big.yaml", srv.URL + "/big.yaml: is larger than 1000 bytes"},
		{"/slow.yaml", srv.URL + "/slow.yaml: cannot be fetched: context deadline exceeded"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			ld := *ld
			ld.MaxBytes, ld.Timeout = 1000, 100*time.Millisecond
			err := ld.LoadURL(ctx, registry.New(), srv.URL+tc.path)
			assert.Contains(t, problems(t, err)[0], tc.want)
		})
	}
	err := ld.LoadURL(ctx, registry.New(), "file:///etc/passwd")
	assert.Equal(t, []string{"file:///etc/passwd: is not an http or https URL"}, problems(t, err))
}
func TestLoadRefusesAnAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("tools:\n  - name: read_file\n    type: go\n    description: Read a file\n    input_schema:\n      type: object\n      properties:\n")
	b.WriteString("        p0: {type: string, examples: &x0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]}\n")
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, "        p%d: {type: string, examples: &x%d [*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d,*x%[3]d]}\n", i, i, i-1)
	}
	require.Less(t, b.Len(), 1000, "a file under a kilobyte")
	err := newLoader(nil).Load(registry.New(), strings.NewReader(b.String()), "bomb.yaml")
	require.Error(t, err)
	probs := problems(t, err)
	require.Len(t, probs, 1)
	assert.Contains(t, probs[0], "bomb.yaml:")
	assert.Contains(t, probs[0], "alias bomb")
}

// Keys of a schema are kept as written: a dotted name, or a quoted "<<"
// (a merge key only when plain), is a name like any other.
func TestLoadKeepsSchemaKeysAsWritten(t *testing.T) {
	reg := registry.New()
	require.NoError(t, newLoader(&shellRecorder{argv: map[string][]string{}}).Load(reg, strings.NewReader(`tools:
  - name: list_files
    description: d
    type: shell
    implementation: {command: [ls]}
    input_schema:
      type: object
      properties: {"a.type": {type: string}, a: {type: string}, "<<": {type: integer, maximum: 18446744073709551615}}
`), "t.yaml"))
	e, ok := reg.Lookup("list_files")
	require.True(t, ok)
	assert.JSONEq(t, `{"type":"object","properties":{"a.type":{"type":"string"},"a":{"type":"string"},"<<":{"type":"integer","maximum":18446744073709551615}}}`, string(e.Spec.InputSchema))
	assert.Contains(t, string(e.Spec.InputSchema), "18446744073709551615", "integers are kept exact")
}

// A go tool's file entry overrides only what it writes: metadata keys it
// leaves out keep the Go definition's values.
func TestLoadGoToolKeepsWhatTheFileLeavesOut(t *testing.T) {
	ld := &loader.Loader{Funcs: loader.FuncTable(tool.Func("read_file", "Go description", readFile,
		tool.WithTags("go-tag"), tool.WithCategory("files"), tool.WithRateLimit(7), tool.WithApproval(),
		tool.WithAnnotations(tool.Annotations{Title: "From Go", ReadOnly: true, Idempotent: true})))}
	reg := registry.New()
	require.NoError(t, ld.Load(reg, strings.NewReader(`tools:
  - name: read_file
    type: go
    metadata:
      version: "2"
      category: ~
      annotations: {idempotent: false}
`), "t.yaml"))
	e, ok := reg.Lookup("read_file")
	require.True(t, ok)
	assert.Equal(t, "Go description", e.Spec.Description)
	assert.Equal(t, "2", e.Spec.Version)
	assert.Equal(t, []string{"go-tag"}, e.Spec.Tags)
	assert.Equal(t, "files", e.Spec.Category, "a null is as if not written")
	assert.Equal(t, 7, e.Spec.RateLimitPerHour)
	assert.True(t, e.Spec.RequiresApproval)
	assert.Equal(t, tool.Annotations{Title: "From Go", ReadOnly: true}, e.Spec.Annotations, "a claim the file takes away is gone, the others kept")
}

// A file of thousands of wrong values is reported in bounded time and
// words: the first problems and a count of the rest.
func TestLoadCapsDecodeProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString("tools:\n  - name: a\n    description: d\n    type: go\n    metadata:\n      annotations:\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "        k%d: 1\n", i)
	}
	err := newLoader(nil).Load(registry.New(), strings.NewReader(b.String()), "t.yaml")
	probs := problems(t, err)
	assert.Less(t, len(probs), 110)
	assert.Contains(t, strings.Join(probs, "\n"), "has 4900 more problems of keys and values after the first 100")
}

// FuzzLoad: any bytes give a nil error or a *LoadError, never a panic, and
// a file with a problem registers nothing.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(goodFile))
	f.Add([]byte("tools:\n  - name: a\n    metadata: {annotations: {read_only: maybe}, tags: [x, {y: 1}]}\n"))
	f.Add([]byte("tools: &a [*a]\n"))
	f.Add([]byte("tools:\n  - {name: a, name: b, type: go}\n---\ntools: []\n"))
	f.Add([]byte("tools:\n  - name: read_file\n    type: go\n    input_schema: &x {risk: bogus}\n    metadata: {<<: *x}\n"))
	f.Add([]byte("x: &a {type: object}\ntools:\n  - {name: read_file, type: go, metadata: {annotations: {title: *a}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		reg := registry.New()
		err := newLoader(&shellRecorder{argv: map[string][]string{}}).Load(reg, bytes.NewReader(data), "f.yaml")
		if err != nil {
			var le *loader.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error is not a *LoadError: %v", err)
			}
			if len(reg.Names()) != 0 {
				t.Fatalf("a file with problems registered %v", reg.Names())
			}
		}
	})
}

// YAML merge keys (<<) are refused wherever they are: the typed decoder
// merged their keys while the loader's checks read the node tree, which
// has no such keys. Seen failing before: a risk, an allowed mode or a
// rate limit merged into metadata panicked (nil line lookup), and a merged
// requires_approval: true was silently dropped from a registered tool.
func TestLoadRefusesMergeKeys(t *testing.T) {
	for name, body := range map[string]string{
		"risk":     "{type: object, risk: bogus}",
		"modes":    "{type: object, allowed_modes: [zzz]}",
		"rate":     "{type: object, rate_limit_per_hour: -1}",
		"approval": "{type: object, requires_approval: true}",
	} {
		t.Run(name, func(t *testing.T) {
			file := "tools:\n  - name: read_file\n    type: go\n    input_schema: &x " + body + "\n    metadata:\n      <<: *x\n"
			reg := registry.New()
			var err error
			require.NotPanics(t, func() { err = newLoader(nil).Load(reg, strings.NewReader(file), "m.yaml") })
			require.Error(t, err)
			assert.Contains(t, strings.Join(problems(t, err), "\n"), "m.yaml:6: YAML merge keys (<<) are not supported: write the keys out")
			assert.Empty(t, reg.Names())
		})
	}
}

// A file of many small wrong documents is reported in bounded words: the
// problems stop at a cap with a note. Seen failing before: 4 MB of "---"
// lines gave 1,048,576 problems, a 77 MB error, in 3.7 s.
func TestLoadCapsProblemsPerFile(t *testing.T) {
	file := strings.Repeat("---\n", 50000) + "tools: []\n"
	err := newLoader(nil).Load(registry.New(), strings.NewReader(file), "many.yaml")
	probs := problems(t, err)
	assert.LessOrEqual(t, len(probs), 1001)
	assert.Contains(t, strings.Join(probs, "\n"), "many.yaml: stopped after 1000 problems")
	assert.Less(t, len(err.Error()), 200_000)
}

// A URL LoadURL refuses is named without its password, like every other
// URL in its messages. Seen failing before: "ftp://ada:hunter2@..." and a
// URL that does not parse were quoted whole.
func TestLoadURLRefusedURLHidesItsPassword(t *testing.T) {
	ld := newLoader(nil)
	for _, raw := range []string{"ftp://ada:hunter2@example.com/t.yaml", "http://ada:hunter2@exa mple.com/%zz", "https://ada:hunter2@/t.yaml"} {
		err := ld.LoadURL(context.Background(), registry.New(), raw)
		probs := problems(t, err)
		require.Len(t, probs, 1, raw)
		assert.NotContains(t, probs[0], "hunter2", raw)
		assert.Contains(t, probs[0], "is not an http or https URL", raw)
	}
}

// Reading a block costs about its size, whatever the length of the path
// of its values, and so do its problems past the first hundred. Seen
// failing before: every value's dotted path was built and kept, so a 55 kB
// block of 50 nested 1 kB keys over a list of 5,000 numbers made 250 MB of
// paths (over 100,000 values, gigabytes).
func TestLoadLongPathsCostTheirSize(t *testing.T) {
	for item, want := range map[string]string{
		"1":    `implementation.command: must be a string or a list`, // the block reaches the factory
		".inf": `has 4900 more problems of keys and values after the first 100`,
	} {
		var b strings.Builder
		b.WriteString("tools:\n  - name: x\n    type: shell\n    description: d\n    implementation: ")
		for i := range 50 {
			fmt.Fprintf(&b, "{%s%d: ", strings.Repeat("k", 1000), i)
		}
		b.WriteString("[" + strings.Repeat(item+", ", 5000) + "{}]" + strings.Repeat("}", 50) + "\n")
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := newLoader(&shellRecorder{argv: map[string][]string{}}).Load(registry.New(), strings.NewReader(b.String()), "t.yaml")
		runtime.ReadMemStats(&after)
		assert.Contains(t, strings.Join(problems(t, err), "\n"), want)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(40<<20), "bytes allocated for a %d-byte file of %s", b.Len(), item)
	}
}

// A factory's errors are capped like the problems of keys and values: the
// first hundred at their lines, then a count. Seen failing before: 30,000
// bad query parameters gave 1,000 problems and took 5 s, each line found
// by a walk of the 30,000 keys.
func TestLoadCapsFactoryErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("tools:\n  - name: x\n    type: http\n    description: d\n    implementation:\n      url: https://example.com/\n      query:\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "        q%d: \"{nope}\"\n", i)
	}
	err := newLoader(nil).Load(registry.New(), strings.NewReader(b.String()), "t.yaml")
	probs := problems(t, err)
	require.Less(t, len(probs), 110)
	all := strings.Join(probs, "\n")
	assert.Contains(t, all, `t.yaml:8: tool "x": implementation.query.q0: {nope} names no property of the input schema`)
	assert.Contains(t, all, "t.yaml: has 2900 more problems of keys and values after the first 100")
}
