package policy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func env(k string) (string, bool) {
	switch k {
	case "WORK":
		return "/w", true
	case "HOME":
		return "/home/u", true
	}
	return "", false
}

type fileArgs struct {
	Path    string `json:"path"`
	Content string `json:"content,omitempty"`
}

type copyArgs struct {
	From []string `json:"from"`
	To   string   `json:"to"`
}

type uploadArgs struct {
	Blob any    `json:"blob"`
	Note string `json:"note,omitempty"`
}

type fixture struct {
	reg  *registry.Registry
	runs atomic.Int64
	// approval records what the policy left for the approval extension.
	approval atomic.Value
}

func newFixture(t testing.TB) *fixture {
	f := &fixture{reg: registry.New()}
	ok := func(context.Context, fileArgs) (string, error) { f.runs.Add(1); return "ok", nil }
	f.reg.MustRegister(
		tool.Func("read_file", "Read a file", ok, tool.ReadOnly(), tool.WithRisk(tool.RiskLow)),
		tool.Func("write_file", "Write a file", ok, tool.WithRisk(tool.RiskHigh)),
		tool.Func("list_dir", "List a directory", ok, tool.WithModes(tool.ModeNormal)),
		tool.Func("copy_files", "Copy files", func(context.Context, copyArgs) (string, error) { f.runs.Add(1); return "ok", nil }),
		tool.Func("upload", "Upload", func(context.Context, uploadArgs) (string, error) { f.runs.Add(1); return "ok", nil }),
	)
	return f
}

func (f *fixture) executor(p *policy.Policy) *executor.Executor {
	// The spy stands where the approval extension does, under its name,
	// so that the executor leaves a demanded approval to it.
	spy := extension.Hooks{ExtName: extension.NameApproval, Prio: extension.PriorityApproval, Before: func(_ context.Context, req *extension.Request) *tool.Result {
		v, _ := req.Get(approval.RequiredKey)
		s, _ := v.(string)
		f.approval.Store(s)
		return nil
	}}
	return executor.MustNew(f.reg, executor.WithExtensions(p, spy))
}

func load(t testing.TB) *policy.Policy {
	p, err := policy.Load("testdata/governance.yaml", policy.WithEnv(env))
	require.NoError(t, err)
	return p
}

func run(t testing.TB, ex *executor.Executor, name string, args any) (*tool.Result, error) {
	b, err := json.Marshal(args)
	require.NoError(t, err)
	return ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: b})
}

func TestLoadSources(t *testing.T) {
	data, err := os.ReadFile("testdata/governance.yaml")
	require.NoError(t, err)
	fromPath := load(t)
	fromBytes, err := policy.Parse(data, policy.WithEnv(env))
	require.NoError(t, err)
	fromReader, err := policy.Read(strings.NewReader(string(data)), policy.WithEnv(env))
	require.NoError(t, err)
	for _, p := range []*policy.Policy{fromPath, fromBytes, fromReader} {
		assert.Equal(t, "normal", p.Mode())
		assert.Contains(t, p.Modes(), "maintenance")
		require.NoError(t, p.SetMode("maintenance"), "a mode declared in global.modes")
	}
	_, err = policy.Load("testdata/missing.yaml")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing.yaml")
}

func TestModes(t *testing.T) {
	cases := []struct {
		mode, tool   string
		wantRule     string // empty: allowed
		wantApproval string
	}{
		{"normal", "write_file", "", ""},
		{"alert", "write_file", "", "policy rule tools.write_file.requires_approval_in_modes: mode alert requires approval"},
		{"recovery", "write_file", "", "policy rule tools.write_file.requires_approval_in_modes: mode recovery requires approval"},
		{"lockdown", "write_file", "tools.write_file.forbidden_in_modes", ""},
		{"maintenance", "write_file", "tools.write_file.allowed_in_modes", ""},
		{"lockdown", "read_file", "", ""},
		{"maintenance", "read_file", "tools.read_file.allowed_in_modes", ""},
		{"lockdown", "upload", "", ""}, // no mode rules: every mode
		{"normal", "list_dir", "", ""},
		{"alert", "list_dir", "spec.allowed_modes", ""}, // the tool's own Spec.AllowedModes
	}
	for _, tc := range cases {
		t.Run(tc.mode+"/"+tc.tool, func(t *testing.T) {
			f := newFixture(t)
			p := load(t)
			require.NoError(t, p.SetMode(tc.mode))
			ex := f.executor(p)
			args := map[string]any{"path": "/w/agent/x.txt"}
			if tc.tool == "upload" {
				args = map[string]any{"blob": "x"}
			}
			res, err := run(t, ex, tc.tool, args)
			if tc.wantRule != "" {
				require.Error(t, err)
				assert.Equal(t, tool.CodePolicyDenied, res.Error.Code)
				assert.Contains(t, res.Error.Message, "policy rule "+tc.wantRule)
				assert.Contains(t, res.Error.Message, tc.mode)
				assert.Equal(t, tc.wantRule, res.Metadata[policy.MetaRule])
				assert.Equal(t, tc.mode, res.Metadata[policy.MetaMode])
				assert.Zero(t, f.runs.Load())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, int64(1), f.runs.Load())
			assert.Equal(t, tc.wantApproval, f.approval.Load())
		})
	}
}

func TestDenialNamesFileAndLine(t *testing.T) {
	f := newFixture(t)
	p := load(t)
	require.NoError(t, p.SetMode("lockdown"))
	res, _ := run(t, f.executor(p), "write_file", map[string]any{"path": "/w/agent/x"})
	require.NotNil(t, res.Error)
	assert.Equal(t, `policy rule tools.write_file.forbidden_in_modes (testdata/governance.yaml:18): tool "write_file" is forbidden in mode lockdown`, res.Error.Message)
}

func TestSetModeAtRunTime(t *testing.T) {
	f := newFixture(t)
	p := load(t)
	ex := f.executor(p)
	_, err := run(t, ex, "write_file", map[string]any{"path": "/w/agent/a"})
	require.NoError(t, err)

	require.NoError(t, p.SetMode("LOCKDOWN"))
	assert.Equal(t, "lockdown", p.Mode())
	_, err = run(t, ex, "write_file", map[string]any{"path": "/w/agent/a"})
	assert.ErrorIs(t, err, tool.ErrPolicyDenied, "the same executor sees the new mode")

	err = p.SetMode("lockdwn")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown mode "lockdwn": did you mean "lockdown"?`)
	assert.Equal(t, "lockdown", p.Mode(), "a refused switch leaves the mode alone")
}

func TestSetModeConcurrent(t *testing.T) {
	f := newFixture(t)
	p := load(t)
	ex := f.executor(p)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				if i%2 == 0 {
					_ = p.SetMode([]string{"normal", "lockdown"}[j%2])
					continue
				}
				res, _ := run(t, ex, "write_file", map[string]any{"path": "/w/agent/a"})
				if !res.OK() {
					assert.Equal(t, tool.CodePolicyDenied, res.Error.Code)
				}
			}
		}()
	}
	wg.Wait()
}

func TestPaths(t *testing.T) {
	cases := []struct {
		name, tool string
		args       any
		wantRule   string
		wantMsg    string
	}{
		{"allowed under **", "write_file", fileArgs{Path: "/w/agent/a/b/c.txt"}, "", ""},
		{"allowed single-segment glob", "write_file", fileArgs{Path: "/w/docs/readme.md"}, "", ""},
		{"outside allowed", "write_file", fileArgs{Path: "/w/docs/sub/readme.md"}, "tools.write_file.allowed_paths", "not under an allowed path ($WORK/agent/**, $WORK/docs/*.md)"},
		{"tool deny beats allow", "write_file", fileArgs{Path: "/w/agent/secrets/key"}, "tools.write_file.forbidden_paths", `matches forbidden pattern "$WORK/agent/secrets/**"`},
		{"global deny", "write_file", fileArgs{Path: "/home/u/.ssh/id_rsa"}, "global.forbidden_paths", `"**/.ssh/**"`},
		{"global deny for a tool without rules", "read_file", fileArgs{Path: "/etc/passwd"}, "global.forbidden_paths", `"/etc/**"`},
		{"cleaned before matching", "write_file", fileArgs{Path: "/w/agent/../agent/secrets/k"}, "tools.write_file.forbidden_paths", ""},
		{"dotdot escape", "read_file", fileArgs{Path: "../../etc/passwd"}, "paths.parent", `climbs out`},
		{"no allow list: open", "read_file", fileArgs{Path: "/tmp/x"}, "", ""},
		{"custom path fields, array", "copy_files", copyArgs{From: []string{"/w/a", "/tmp/b"}, To: "/w/c"}, "tools.copy_files.allowed_paths", `argument "from": path "/tmp/b"`},
		{"custom path fields ok", "copy_files", copyArgs{From: []string{"/w/a"}, To: "/w/c"}, "", ""},
		{"custom path fields: deny still global", "copy_files", copyArgs{From: []string{"/w/a"}, To: "/w/.ssh/k"}, "global.forbidden_paths", `argument "to"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			res, err := run(t, f.executor(load(t)), tc.tool, tc.args)
			if tc.wantRule == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code)
			assert.Equal(t, tc.wantRule, res.Metadata[policy.MetaRule])
			assert.Contains(t, res.Error.Message, tc.wantMsg)
			assert.Zero(t, f.runs.Load())
		})
	}
}

func TestSizes(t *testing.T) {
	big := strings.Repeat("x", 1<<20+1)
	cases := []struct {
		name, tool string
		args       any
		wantRule   string
	}{
		{"content within max_file_size_mb", "write_file", fileArgs{Path: "/w/agent/a", Content: "hello"}, ""},
		{"content over max_file_size_mb", "write_file", fileArgs{Path: "/w/agent/a", Content: big}, "tools.write_file.max_file_size_mb"},
		{"args over global max_arg_bytes", "read_file", fileArgs{Path: "/tmp/" + strings.Repeat("a", 5000)}, "global.max_arg_bytes"},
		{"string field counts bytes", "upload", uploadArgs{Blob: strings.Repeat("b", 16)}, ""},
		{"string field over", "upload", uploadArgs{Blob: strings.Repeat("b", 17)}, "tools.upload.max_field_bytes"},
		{"non-string field counts JSON", "upload", uploadArgs{Blob: []int{1, 2, 3, 4, 5, 6, 7, 8}}, "tools.upload.max_field_bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p := load(t)
			ex := executor.MustNew(f.reg, executor.WithExtensions(p), executor.WithMaxArgBytes(4<<20))
			res, err := run(t, ex, tc.tool, tc.args)
			if tc.wantRule == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code)
			assert.Equal(t, tc.wantRule, res.Metadata[policy.MetaRule])
			assert.Contains(t, res.Error.Message, "limit")
		})
	}
	// A tool's max_arg_bytes replaces the global one.
	p, err := policy.Parse([]byte("global: {max_arg_bytes: 10}\ntools:\n  read_file: {max_arg_bytes: 100}\n"))
	require.NoError(t, err)
	f := newFixture(t)
	_, err = run(t, executor.MustNew(f.reg, executor.WithExtensions(p)), "read_file", fileArgs{Path: "/tmp/abcdefgh"})
	assert.NoError(t, err, "the tool's limit replaces the global one")
}

func TestDefaultPathFields(t *testing.T) {
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["/etc/**"]}`))
	require.NoError(t, err)
	reg := registry.New()
	type many struct {
		File      string `json:"file,omitempty"`
		Directory string `json:"directory,omitempty"`
		Dst       string `json:"dst,omitempty"`
		Other     string `json:"other,omitempty"`
	}
	reg.MustRegister(tool.Func("t", "t", func(context.Context, many) (string, error) { return "ok", nil }))
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for _, field := range policy.DefaultPathFields {
		if field != "file" && field != "directory" && field != "dst" {
			continue
		}
		_, err := run(t, ex, "t", map[string]string{field: "/etc/shadow"})
		assert.ErrorIs(t, err, tool.ErrPolicyDenied, field)
	}
	_, err = run(t, ex, "t", map[string]string{"other": "/etc/shadow"})
	assert.NoError(t, err, "a field not named as a path is not a path")
}

func TestNoFile(t *testing.T) {
	f := newFixture(t)
	p := policy.New()
	ex := f.executor(p)
	_, err := run(t, ex, "list_dir", fileArgs{Path: "/etc/x"})
	require.NoError(t, err)
	require.NoError(t, p.SetMode(tool.ModeAlert))
	_, err = run(t, ex, "list_dir", fileArgs{Path: "/etc/x"})
	assert.ErrorIs(t, err, tool.ErrPolicyDenied, "Spec.AllowedModes is enforced without a file")

	p = policy.New(policy.WithMode("degrade"))
	require.Error(t, p.Err())
	assert.Contains(t, p.Err().Error(), `did you mean "degraded"?`)
	assert.Equal(t, "normal", p.Mode())
}

func TestBrokenFiles(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"mode typo (issue example)", "tools:\n  write_file:\n    allowed_modes: [normal, lockdwn]\n",
			`governance.yaml:3: tools.write_file.allowed_modes: unknown mode "lockdwn": did you mean "lockdown"?`},
		{"unknown mode, no close match", "tools:\n  t:\n    forbidden_in_modes: banana\n",
			`governance.yaml:3: tools.t.forbidden_in_modes: unknown mode "banana": known modes are normal, alert, degraded, lockdown, recovery (declare others in global.modes)`},
		{"unknown field", "tools:\n  t:\n    alowed_paths: [/x]\n",
			`governance.yaml:3: tools.t: unknown field "alowed_paths": did you mean "allowed_paths"?`},
		{"unknown root field", "tool:\n  t: {}\n",
			`governance.yaml:1: unknown field "tool": did you mean "tools"?`},
		{"syntax error", "tools:\n  t: [\n",
			`governance.yaml:2: not valid YAML: did not find expected node content`},
		{"bad glob", "global:\n  forbidden_paths: [\"/a/b**\"]\n",
			`governance.yaml:2: global.forbidden_paths: pattern "/a/b**": ** must be a whole path segment`},
		{"unset variable", "global:\n  allowed_paths: [\"$NOPE/x\"]\n",
			`governance.yaml:2: global.allowed_paths: pattern "$NOPE/x" uses $NOPE, which is not set`},
		{"bad size", "global:\n  max_arg_bytes: lots\n",
			`governance.yaml:2: global.max_arg_bytes: "lots" is not a size`},
		{"zero size", "tools:\n  t:\n    max_file_size_mb: 0\n",
			`governance.yaml:3: tools.t.max_file_size_mb: size must be positive`},
		{"duplicate tool", "tools:\n  t: {}\n  t: {}\n",
			`governance.yaml:3: tools.t: duplicate key (first set at line 2)`},
		{"forbidden and allowed", "tools:\n  t:\n    allowed_in_modes: [normal]\n    forbidden_in_modes: [normal]\n",
			`governance.yaml:3: tools.t: mode "normal" is both forbidden and allowed`},
		{"wrong shape", "tools: [a, b]\n",
			`governance.yaml:1: tools: want a mapping`},
		{"bad version", "version: 2\n", `governance.yaml:1: version: unsupported version "2"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := policy.Parse([]byte(tc.yaml), policy.WithEnv(env))
			require.Error(t, err)
			assert.Nil(t, p)
			assert.Contains(t, err.Error(), tc.want)
			var le *policy.LoadError
			assert.True(t, errors.As(err, &le))
		})
	}
}

func TestBrokenFileReportsEveryProblem(t *testing.T) {
	_, err := policy.Parse([]byte("tools:\n  a: {allowed_modes: [nromal]}\n  b: {forbidden_modes: [alret]}\n"), policy.WithFilename("gov.yaml"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `gov.yaml:2: tools.a.allowed_modes: unknown mode "nromal": did you mean "normal"?`)
	assert.Contains(t, err.Error(), `gov.yaml:3: tools.b.forbidden_modes: unknown mode "alret": did you mean "alert"?`)
}

func TestLoadErrorNamesPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "governance.yaml")
	require.NoError(t, os.WriteFile(file, []byte("global:\n  mode: lockdwn\n"), 0o600))
	_, err := policy.Load(file)
	require.Error(t, err)
	assert.Equal(t, fmt.Sprintf(`%s:2: global.mode: unknown mode "lockdwn": did you mean "lockdown"?`, file), err.Error())
}

func TestCheckWarnings(t *testing.T) {
	p, err := policy.Parse([]byte("tools:\n  read_file: {}\n  writ_file: {}\n  copy_files:\n    path_fields: [from, too]\n"))
	require.NoError(t, err)
	f := newFixture(t)
	ws := p.Check(f.reg)
	require.Len(t, ws, 2)
	assert.Equal(t, `governance.yaml:3: tools.writ_file: rule for tool "writ_file", which is not registered: did you mean "write_file"?`, ws[0].String())
	assert.Equal(t, `governance.yaml:5: tools.copy_files.path_fields: tool "copy_files" has no argument "too": did you mean "to"?`, ws[1].String())

	// A rule for a tool that is not registered, and path_fields naming an
	// argument the tool does not have, make executor.New fail, each with
	// the closest name.
	_, err = executor.New(f.reg, executor.WithExtensions(p))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `rule for tool "writ_file", which is not registered: did you mean "write_file"?`)
	assert.Contains(t, err.Error(), `tool "copy_files" has no argument "too": did you mean "to"?`)
	p, err = policy.Parse([]byte("tools:\n  read_file: {}\n  copy_files:\n    path_fields: [from, to]\n"))
	require.NoError(t, err)
	ex := f.executor(p)
	_, err = run(t, ex, "read_file", fileArgs{Path: "/x"})
	assert.NoError(t, err, "a policy without mistakes works")

	// A tool registered later is checked when it is registered.
	p, err = policy.Parse([]byte("tools:\n  read_file: {}\n  later_tool:\n    path_fields: [pth]\n"))
	require.NoError(t, err)
	_, err = executor.New(f.reg, executor.WithExtensions(p))
	require.Error(t, err, "later_tool is not registered yet")
}

// Tools registered after executor.New are checked by the extensions'
// CheckTool when they are registered: a tool reloaded with another schema
// that the policy's rule no longer fits is refused.
func TestToolRegisteredLaterIsChecked(t *testing.T) {
	p, err := policy.Parse([]byte("tools:\n  mover:\n    path_fields: [src]\n"))
	require.NoError(t, err)
	f := newFixture(t)
	type srcArgs struct {
		Src string `json:"src"`
	}
	type sourceArgs struct {
		Source string `json:"source"`
	}
	f.reg.MustRegister(tool.Func("mover", "Moves a file", func(context.Context, srcArgs) (string, error) { return "", nil }))
	_, err = executor.New(f.reg, executor.WithExtensions(p))
	require.NoError(t, err)

	require.True(t, f.reg.Remove("mover"))
	err = f.reg.Register(tool.Func("mover", "Moves a file", func(context.Context, sourceArgs) (string, error) { return "", nil }))
	require.Error(t, err, "the reloaded tool no longer has the argument the policy checks")
	assert.Contains(t, err.Error(), `tool "mover" has no argument "src"`)
	_, ok := f.reg.Lookup("mover")
	assert.False(t, ok, "nothing was registered")
	require.NoError(t, f.reg.Register(tool.Func("mover", "Moves a file", func(context.Context, srcArgs) (string, error) { return "", nil })))
}

func TestPriority(t *testing.T) {
	p := policy.New()
	assert.Equal(t, extension.PriorityPolicy, p.Priority())
	assert.Equal(t, policy.Name, p.Name())
}

func TestDuplicatePathKeysAreAllJudged(t *testing.T) {
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["/etc/**"]}`))
	require.NoError(t, err)
	spec := &tool.Spec{Name: "read_file"}
	for _, args := range []string{
		`{"path":"/ok","path":"/etc/shadow"}`,
		`{"path":"/etc/shadow","path":"/ok"}`,
		`{"pa\u0074h":"/etc/shadow"}`,
		`{"path":["/ok","/etc/shadow"]}`,
		`{"path":"/\u0065tc/shadow"}`,
	} {
		rule, err := p.Evaluate(tool.ModeNormal, spec, json.RawMessage(args))
		assert.ErrorIs(t, err, tool.ErrPolicyDenied, args)
		assert.Equal(t, "global.forbidden_paths", rule, args)
	}
	rule, err := p.Evaluate(tool.ModeNormal, spec, json.RawMessage(`{"path":"/ok","other":"/etc/shadow"}`))
	assert.NoError(t, err)
	assert.Empty(t, rule)
}
