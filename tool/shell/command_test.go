package shell_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/registry/loader"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// processEngine returns a process engine with dir as its workspace.
func processEngine(t testing.TB, dir string) sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.New("process", sandbox.WithWorkspace(dir),
		sandbox.WithLimits(sandbox.Limits{Timeout: 20 * time.Second, OutputBytes: 1 << 20}))
	require.NoError(t, err)
	return sb
}

// argvPrinter is a real program that prints each of its arguments followed
// by a NUL byte, so a test sees exactly the argv a command received.
var argvPrinter = []string{"sh", "-c", `for a in "$@"; do printf '%s\0' "$a"; done`, "argv"}

// helperArgv is the argv printer followed by tmpl.
func helperArgv(_ testing.TB, tmpl ...string) []string {
	return append(slices.Clone(argvPrinter), tmpl...)
}

func receivedArgv(t *testing.T, res *tool.Result) []string {
	t.Helper()
	require.NotNil(t, res)
	require.True(t, res.OK(), "result: %+v", res.Error)
	out := res.Metadata[shell.MetaStdout].(string)
	require.True(t, out == "" || strings.HasSuffix(out, "\x00"), "stdout: %q", out)
	got := []string{}
	if out != "" {
		got = strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	}
	return got
}

func args(t testing.TB, v any) json.RawMessage {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// Hostile values reach the program as one literal argument each, whether
// they fill a whole argument or part of one.
func TestArgvValuesStaySingleLiteralArguments(t *testing.T) {
	dir := t.TempDir()
	sb := processEngine(t, dir)
	whole, err := shell.NewCommand("whole", "echo argv", sb, helperArgv(t, "--", "{v}"))
	require.NoError(t, err)
	part, err := shell.NewCommand("part", "echo argv", sb, helperArgv(t, "--", "x={v}"))
	require.NoError(t, err)

	values := []string{
		"; rm -rf /",
		"$(id)",
		"`id`",
		"--upload-pack=evil",
		"-rf",
		"a b",
		"*",
		"line1\nline2",
		`'single' "double"`,
		`\`,
		"${HOME}",
		"| cat /etc/passwd",
		"&& touch pwned",
		"",
		"ünïcødé ✓",
	}
	for _, v := range values {
		t.Run(v, func(t *testing.T) {
			res, err := whole.Run(context.Background(), tool.Call{Name: "whole", Args: args(t, map[string]string{"v": v})})
			require.NoError(t, err)
			assert.Equal(t, []string{"--", v}, receivedArgv(t, res))

			res, err = part.Run(context.Background(), tool.Call{Name: "part", Args: args(t, map[string]string{"v": v})})
			require.NoError(t, err)
			assert.Equal(t, []string{"--", "x=" + v}, receivedArgv(t, res))
		})
	}
	_, err = os.Stat(filepath.Join(dir, "pwned"))
	assert.True(t, errors.Is(err, os.ErrNotExist), "no value ran a command")
}

// A value that would be read as an option (no "--" before it) is refused
// unless AllowOptionValues says the program wants options there.
func TestOptionLikeValuesRefusedBeforeDashDash(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	argv := helperArgv(t, "{ref}", "--", "{path}")
	c, err := shell.NewCommand("c", "echo argv", sb, argv)
	require.NoError(t, err)

	_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]string{"ref": "--upload-pack=evil", "path": "x"})})
	require.Error(t, err)
	assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code)
	assert.Contains(t, err.Error(), "starts with '-'")

	res, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]string{"ref": "main", "path": "-rf"})})
	require.NoError(t, err, "after -- a dash value is an operand")
	assert.Equal(t, []string{"main", "--", "-rf"}, receivedArgv(t, res))

	open, err := shell.NewCommand("c", "echo argv", sb, argv, shell.AllowOptionValues())
	require.NoError(t, err)
	res, err = open.Run(context.Background(), tool.Call{Args: args(t, map[string]string{"ref": "--upload-pack=evil", "path": "x"})})
	require.NoError(t, err)
	assert.Equal(t, []string{"--upload-pack=evil", "--", "x"}, receivedArgv(t, res), "still one argument")
}

func TestArgvExpansionRules(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	schema := `{"type":"object","properties":{
		"files":{"type":"array","items":{"type":"string"}},
		"count":{"type":"integer"},
		"ratio":{"type":"number"},
		"all":{"type":"boolean"},
		"who":{"type":"string"}},"required":["files"]}`
	c, err := shell.NewCommand("c", "echo argv", sb,
		helperArgv(t, "--max-count=20", "--max-count={count}", "--ratio={ratio}", "--all={all}", "--author={who}", "{{lit}}", "--", "{files}"),
		shell.WithInputSchema([]byte(schema)))
	require.NoError(t, err)

	tests := []struct {
		name string
		args string
		want []string
	}{
		{"everything", `{"files":["a b","c"],"count":5,"ratio":0.5,"all":true,"who":"x y"}`,
			[]string{"--max-count=20", "--max-count=5", "--ratio=0.5", "--all=true", "--author=x y", "{lit}", "--", "a b", "c"}},
		{"absent optionals drop their argument", `{"files":["a"]}`,
			[]string{"--max-count=20", "{lit}", "--", "a"}},
		{"null is absent", `{"files":["a"],"who":null}`,
			[]string{"--max-count=20", "{lit}", "--", "a"}},
		{"empty array gives no argument", `{"files":[]}`,
			[]string{"--max-count=20", "{lit}", "--"}},
		{"numbers in plain decimal", `{"files":[],"count":1e3,"ratio":2.50}`,
			[]string{"--max-count=20", "--max-count=1000", "--ratio=2.50", "{lit}", "--"}},
		{"false is written", `{"files":[],"all":false}`,
			[]string{"--max-count=20", "--all=false", "{lit}", "--"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.Run(context.Background(), tool.Call{Args: json.RawMessage(tc.args)})
			require.NoError(t, err)
			assert.Equal(t, tc.want, receivedArgv(t, res))
		})
	}

	_, err = c.Run(context.Background(), tool.Call{Args: json.RawMessage(`{"files":[{"a":1}]}`)})
	require.Error(t, err)
	assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code)
	assert.Contains(t, err.Error(), "files[0]")
}

func TestGeneratedSchemaAndDefaults(t *testing.T) {
	dir := t.TempDir()
	sb := processEngine(t, dir)
	c, err := shell.NewCommand("grep_word", "grep", sb, []string{"grep", "-r", "--", "{word}", "{dir}"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"word":{"type":"string"},"dir":{"type":"string"}},"required":["word","dir"],"additionalProperties":false}`,
		string(c.Spec().InputSchema))
	assert.Equal(t, tool.RiskMedium, c.Spec().Risk)

	b, err := shell.NewBash(sb, mustWorkspace(t, dir))
	require.NoError(t, err)
	assert.Equal(t, tool.RiskHigh, b.Spec().Risk)
	assert.True(t, b.Spec().Annotations.Destructive)
}

func TestConstructionErrorsNameTheField(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	withPath := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"opts":{"type":"object"},"list":{"type":"array"}}}`)
	tests := []struct {
		name   string
		sb     sandbox.Sandbox
		argv   []string
		field  string
		substr string
	}{
		{"empty argv", sb, nil, "argv", "is empty"},
		{"program is a placeholder", sb, []string{"{prog}"}, "argv.0", "must be fixed"},
		{"unknown placeholder", sb, []string{"ls", "--", "{pth}"}, "argv.2", `{pth} names no property`},
		{"object placeholder", sb, []string{"ls", "{opts}"}, "argv.1", "object property"},
		{"array inside an argument", sb, []string{"ls", "--x={list}"}, "argv.1", "whole argument"},
		{"unclosed brace", sb, []string{"ls", "{path"}, "argv.1", "without closing"},
		{"stray closing brace", sb, []string{"ls", "a}"}, "argv.1", "no matching"},
		{"not a name", sb, []string{"ls", "{a b}"}, "argv.1", "not a placeholder"},
		{"nil sandbox", nil, []string{"ls"}, "", "no sandbox"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := shell.New(tool.Spec{Name: "t", Description: "d", InputSchema: withPath}, tc.sb, shell.Config{Argv: tc.argv})
			require.Error(t, err)
			var ce *tool.ConfigError
			require.True(t, errors.As(err, &ce), "%v", err)
			assert.Equal(t, tc.field, ce.FieldPath())
			assert.Contains(t, err.Error(), tc.substr)
		})
	}
	_, err := shell.NewBash(nil, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sandbox is nil")
	assert.Contains(t, err.Error(), "workspace is nil")
}

func TestNonZeroExitKeepsOutput(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	c, err := shell.NewCommand("fail", "fails", sb, []string{"sh", "-c", "echo out; echo 'bad thing' >&2; exit 3"})
	require.NoError(t, err)
	res, err := c.Run(context.Background(), tool.Call{})
	require.Error(t, err)
	te := tool.AsError(err)
	assert.Equal(t, tool.CodeNonZeroExit, te.Code)
	assert.Equal(t, "sh exited with status 3: bad thing", te.Message)
	require.NotNil(t, res)
	assert.Equal(t, "out\n[stderr]\nbad thing\n[exit status 3]", res.Text())
	assert.Equal(t, 3, res.Metadata[shell.MetaExitCode])
	assert.Equal(t, "out\n", res.Metadata[shell.MetaStdout])
	assert.Equal(t, "bad thing\n", res.Metadata[shell.MetaStderr])
	assert.Equal(t, false, res.Metadata[shell.MetaTruncated])
	assert.Positive(t, res.Metadata[shell.MetaDuration].(time.Duration))
	require.NotNil(t, res.Usage)
}

func TestOutputBudgetKeepsHeadAndTail(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	c, err := shell.NewCommand("big", "prints a lot", sb,
		[]string{"sh", "-c", "printf HEAD; head -c 100000 /dev/zero | tr '\\0' x; printf TAIL"},
		shell.WithOutputBudget(1000))
	require.NoError(t, err)
	res, err := c.Run(context.Background(), tool.Call{})
	require.NoError(t, err)
	text := res.Text()
	assert.True(t, strings.HasPrefix(text, "HEAD"), text[:20])
	assert.True(t, strings.HasSuffix(text, "TAIL"))
	assert.Contains(t, text, sandbox.TruncationMarker(100008-1000))
	assert.Less(t, len(text), 1100)
	assert.Len(t, res.Metadata[shell.MetaStdout], 100008, "the caller gets the whole capture")
	assert.Equal(t, true, res.Metadata[shell.MetaTruncated])
}

// Output is streamed as events while the command runs.
func TestOutputStreamedAsEvents(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	c, err := shell.NewCommand("chatty", "prints", sb, []string{"sh", "-c", "echo one; echo two >&2; echo three"})
	require.NoError(t, err)
	var evs []tool.Event
	ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) { evs = append(evs, ev) })
	_, err = c.Run(ctx, tool.Call{})
	require.NoError(t, err)
	streams := map[string]string{}
	for _, ev := range evs {
		assert.Equal(t, tool.EventOutput, ev.Kind)
		streams[ev.Stream] += string(ev.Data)
	}
	assert.Equal(t, map[string]string{"stdout": "one\nthree\n", "stderr": "two\n"}, streams)
}

// A command line the classifier blocks is refused before it runs, for argv
// tools too.
func TestCommandBlockedLineRefused(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	c, err := shell.NewCommand("rm_path", "remove", sb, []string{"rm", "-rf", "--", "{path}"})
	require.NoError(t, err)
	v := c.Assess(args(t, map[string]string{"path": "/"}))
	require.Equal(t, classify.Blocked, v.Level, "%v", v.Reasons)
	res, err := c.Run(context.Background(), tool.Call{Args: args(t, map[string]string{"path": "/"})})
	require.Error(t, err)
	assert.Equal(t, tool.CodePolicyDenied, tool.AsError(err).Code)
	assert.Equal(t, "blocked", res.Metadata[shell.MetaDanger])
	assert.Equal(t, "rm -rf -- /", c.Subject(args(t, map[string]string{"path": "/"})))
}

const toolFile = `tools:
  - name: show_args
    description: Print the arguments
    type: shell
    input_schema:
      type: object
      properties:
        word: {type: string}
        n: {type: integer}
      required: [word]
    implementation:
      command: [sh, -c, 'for a in "$@"; do printf ''%s\0'' "$a"; done', argv, "--n={n}", "--", "{word}", "$GREETING"]
      env: {GREETING: "hi"}
      limits: {timeout: 10s}
    metadata:
      risk: low
`

// Tool files load through the registry loader and run through the executor.
func TestKindThroughLoaderAndExecutor(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	ld := &loader.Loader{Kinds: map[string]loader.KindFunc{"shell": shell.Kind(shell.WithSandbox(sb))}}
	reg := registry.New()
	src := toolFile
	require.NoError(t, ld.Load(reg, strings.NewReader(src), "tools.yaml"))

	ex := executor.MustNew(reg)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "1", Name: "show_args", Args: json.RawMessage(`{"word":"$(id); a b","n":7}`)})
	require.NoError(t, err)
	assert.Equal(t, []string{"--n=7", "--", "$(id); a b", "$GREETING"}, receivedArgv(t, res), "no shell expands anything")

	res, _ = ex.Execute(context.Background(), tool.Call{ID: "2", Name: "show_args", Args: json.RawMessage(`{"n":7}`)})
	assert.Equal(t, tool.CodeInvalidArguments, res.Error.Code, "the generated or given schema is enforced")
}

func TestKindErrorsReportedAtTheirLine(t *testing.T) {
	sb := processEngine(t, t.TempDir())
	tests := []struct {
		name, src, want string
	}{
		{"unknown placeholder", `tools:
  - name: bad
    description: d
    type: shell
    input_schema: {type: object, properties: {path: {type: string}}}
    implementation:
      command: [ls, "--", "{pth}"]
`, `t.yaml:7: tool "bad": implementation.command.2: {pth} names no property`},
		{"template with a pipe", `tools:
  - name: bad
    description: d
    type: shell
    implementation:
      command: grep {pattern} /var/log/syslog | head
`, `t.yaml:6: tool "bad": implementation.command: "grep {pattern} /var/log/syslog | head" contains a pipe (|)`},
		{"unknown key", `tools:
  - name: bad
    description: d
    type: shell
    implementation:
      command: [ls]
      workdirr: /tmp
`, `t.yaml:7: tool "bad": implementation.workdirr: unknown key "workdirr"`},
		{"bad limit", `tools:
  - name: bad
    description: d
    type: shell
    implementation:
      command: [ls]
      limits: {timeout: soon}
`, `t.yaml:7: tool "bad": implementation.limits.timeout: "soon" is not a duration`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ld := &loader.Loader{Kinds: map[string]loader.KindFunc{"shell": shell.Kind(shell.WithSandbox(sb))}}
			err := ld.Load(registry.New(), strings.NewReader(tc.src), "t.yaml")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := shell.FromSpec(tool.Spec{Name: "x", Description: "d"}, json.RawMessage(`{"argv":["ls"]}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no sandbox")
}

func TestToolErrorMapping(t *testing.T) {
	tests := []struct {
		err  error
		want tool.Code
	}{
		{sandbox.ErrCreateFailed, tool.CodeSandbox},
		{sandbox.ErrCrashed, tool.CodeSandbox},
		{sandbox.ErrResourceLimit, tool.CodeResourceLimit},
		{sandbox.ErrTimeout, tool.CodeTimeout},
		{sandbox.ErrNetworkPolicy, tool.CodeNetworkPolicy},
		{sandbox.ErrFilesystemPolicy, tool.CodeFilesystemPolicy},
		{sandbox.ErrConcurrency, tool.CodeConcurrencyLimit},
		{sandbox.ErrNonZeroExit, tool.CodeNonZeroExit},
		{&sandbox.PathError{Op: "read", Path: "../x", Rule: `".." leaves the workspace`, Err: sandbox.ErrOutsideWorkspace}, tool.CodeFilesystemPolicy},
		{&sandbox.PathError{Op: "read", Path: "big", Rule: "max", Err: sandbox.ErrTooLarge}, tool.CodeResourceLimit},
		{context.Canceled, tool.CodeCancelled},
		{context.DeadlineExceeded, tool.CodeTimeout},
		{os.ErrNotExist, tool.CodeInvalidArguments},
		{errors.New("boom"), tool.CodeInternal},
		{tool.NewError(tool.CodeConflict, "x"), tool.CodeConflict},
	}
	for _, tc := range tests {
		te := shell.ToolError(tc.err)
		require.NotNil(t, te)
		assert.Equal(t, tc.want, te.Code, "%v", tc.err)
		assert.Equal(t, tc.want.Retryable(), te.Retryable, "%v", tc.err)
		assert.ErrorIs(t, te, tc.err, "the cause stays reachable")
	}
	assert.Nil(t, shell.ToolError(nil))
	te := shell.ToolError(&sandbox.PathError{Op: "read", Path: "../x", Rule: `".." leaves the workspace`, Err: sandbox.ErrOutsideWorkspace})
	assert.Contains(t, te.Message, `".." leaves the workspace`, "the rule is named")
}

func TestConfigEnvAndWorkdir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	c, err := shell.New(tool.Spec{Name: "env", Description: "d"}, processEngine(t, dir),
		shell.Config{Argv: []string{"sh", "-c", `printf '%s %s' "$GREETING" "$(basename "$PWD")"`}, Env: map[string]string{"GREETING": "hi"}, Workdir: "sub"})
	require.NoError(t, err)
	res, err := c.Run(context.Background(), tool.Call{})
	require.NoError(t, err)
	assert.Equal(t, "hi sub", res.Text())
}
