package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// Defaults of the catalog's caps.
const (
	DefaultMaxReadBytes   = 256 << 10 // read_file: bytes of text returned per call
	DefaultMaxReadLines   = 2000      // read_file: lines returned when limit is not given
	DefaultMaxEntries     = 1000      // list_directory: entries per call
	DefaultMaxDepth       = 10        // list_directory: deepest depth a call may ask for
	DefaultMaxMatches     = 200       // search_files: matches per call
	DefaultMaxSearchBytes = 1 << 20   // search_files: larger files are skipped
	DefaultMaxFiles       = 20000     // search_files: files looked at per call (and ten times as many entries walked)
)

// Option configures the catalog's tools.
type Option func(*config)

type config struct {
	maxReadBytes   int
	maxReadLines   int
	maxEntries     int
	maxMatches     int
	maxSearchBytes int64
	maxFiles       int
	testArgv       []string
	shellOpts      []shell.Option
	diskPath       string
	bash           bool
}

func newConfig(opts []Option) *config {
	c := &config{
		maxReadBytes: DefaultMaxReadBytes, maxReadLines: DefaultMaxReadLines, maxEntries: DefaultMaxEntries,
		maxMatches: DefaultMaxMatches, maxSearchBytes: DefaultMaxSearchBytes, maxFiles: DefaultMaxFiles,
		diskPath: "/",
	}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return c
}

// WithMaxReadBytes caps the text read_file returns per call (default
// DefaultMaxReadBytes; zero or negative keeps it).
func WithMaxReadBytes(n int) Option { return func(c *config) { setPositive(&c.maxReadBytes, n) } }

// WithMaxEntries caps the entries list_directory returns (default
// DefaultMaxEntries; zero or negative keeps it).
func WithMaxEntries(n int) Option { return func(c *config) { setPositive(&c.maxEntries, n) } }

// WithMaxMatches caps the matches search_files returns (default
// DefaultMaxMatches; zero or negative keeps it).
func WithMaxMatches(n int) Option { return func(c *config) { setPositive(&c.maxMatches, n) } }

// setPositive sets *dst to n when n is positive: a cap of zero would make a
// tool answer nothing, every time.
func setPositive(dst *int, n int) {
	if n > 0 {
		*dst = n
	}
}

// WithMaxSearchFileSize sets the size above which search_files skips a file
// (default DefaultMaxSearchBytes; zero or negative keeps it). There is no
// setting without a cap: a file searched is read whole into memory, and a
// command can make one of any size (TestAttackS29SearchSizeCapCannotBeTurnedOff).
func WithMaxSearchFileSize(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxSearchBytes = n
		}
	}
}

// WithTestCommand sets the argv of run_tests, e.g. "go", "test", "./...".
// All adds run_tests only when it is set. The argv is the program's, never
// the model's; placeholders are allowed and become the tool's arguments.
func WithTestCommand(argv ...string) Option { return func(c *config) { c.testArgv = argv } }

// WithShellOptions passes options to the shell tools the catalog builds
// (git_*, run_tests, bash), e.g. shell.WithOutputBudget.
func WithShellOptions(opts ...shell.Option) Option {
	return func(c *config) { c.shellOpts = append(c.shellOpts, opts...) }
}

// WithDiskPath sets the file system system_metrics reports the disk usage
// of (default "/").
func WithDiskPath(p string) Option { return func(c *config) { c.diskPath = p } }

// WithBash makes All include the free-form bash tool (shell.NewBash).
func WithBash() Option { return func(c *config) { c.bash = true } }

// Files returns the file tools on ws: read_file, list_directory,
// write_file, edit_file, delete_file and search_files. With a nil ws every
// tool's Check reports it, so registering them fails.
func Files(ws *sandbox.Workspace, opts ...Option) []tool.Tool {
	return []tool.Tool{
		ReadFile(ws, opts...), ListDirectory(ws, opts...), WriteFile(ws), EditFile(ws), DeleteFile(ws), SearchFiles(ws, opts...),
	}
}

// Git returns git_status, git_diff and git_log, run in sb on the repository
// at the root of ws.
func Git(ws *sandbox.Workspace, sb sandbox.Sandbox, opts ...Option) ([]tool.Tool, error) {
	c := newConfig(opts)
	if ws == nil {
		return nil, errors.New("builtin.Git: workspace is nil")
	}
	st, err := GitStatus(ws, sb, c.shellOpts...)
	if err != nil {
		return nil, err
	}
	df, err := GitDiff(ws, sb, c.shellOpts...)
	if err != nil {
		return nil, err
	}
	lg, err := GitLog(ws, sb, c.shellOpts...)
	if err != nil {
		return nil, err
	}
	return []tool.Tool{st, df, lg}, nil
}

// System returns system_metrics and process_health.
func System(opts ...Option) []tool.Tool {
	c := newConfig(opts)
	return []tool.Tool{SystemMetrics(WithDiskPath(c.diskPath)), ProcessHealth()}
}

// All returns the whole catalog: Files, Git, System, and run_tests when
// WithTestCommand is given, bash when WithBash is. run_tests and bash have
// what ws hides (a policy's forbidden_paths) masked from their commands,
// so sb must run in ws's directory (sandbox.WithWorkspace(ws.Dir())).
func All(ws *sandbox.Workspace, sb sandbox.Sandbox, opts ...Option) ([]tool.Tool, error) {
	c := newConfig(opts)
	if ws == nil {
		return nil, errors.New("builtin.All: workspace is nil: open one with sandbox.OpenWorkspace(dir)")
	}
	if sb == nil {
		return nil, errors.New("builtin.All: sandbox is nil: create one with sandbox.New(\"bwrap\", sandbox.WithWorkspace(ws.Dir()))")
	}
	out := Files(ws, opts...)
	git, err := Git(ws, sb, opts...)
	if err != nil {
		return nil, err
	}
	out = append(out, git...)
	out = append(out, System(opts...)...)
	if len(c.testArgv) > 0 {
		// The tests are the model's to write, so the test command runs
		// its code: what ws hides is masked from it, as from bash.
		rt, err := RunTests(sb, c.testArgv, append([]shell.Option{shell.WithWorkspace(ws)}, c.shellOpts...)...)
		if err != nil {
			return nil, err
		}
		out = append(out, rt)
	}
	if c.bash {
		b, err := shell.NewBash(sb, ws, c.shellOpts...)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// typed is a tool with a reflected input (and output) schema whose Run
// builds the whole Result, so it can set content, output and metadata.
type typed[In, Out any] struct {
	spec     tool.Spec
	err      error
	conforms bool
	run      func(ctx context.Context, in In) (*tool.Result, error)
	res      func(in In) []tool.Resource
	ws       *sandbox.Workspace
}

// newTyped reflects the schemas with tool.NewFunc and keeps its spec.
func newTyped[In, Out any](name, desc string, run func(context.Context, In) (*tool.Result, error), res func(In) []tool.Resource, opts ...tool.Option) *typed[In, Out] {
	ft, err := tool.NewFunc(name, desc, func(context.Context, In) (Out, error) {
		var zero Out
		return zero, nil
	}, opts...)
	t := &typed[In, Out]{run: run, res: res, err: err}
	if ft != nil {
		t.spec = ft.Spec()
		t.conforms = ft.OutputConforms()
	}
	if reflect.TypeFor[Out]() == reflect.TypeFor[struct{}]() {
		// Text-only tool: no structured output, no output schema.
		t.spec.OutputSchema, t.conforms = nil, false
	}
	return t
}

func (t *typed[In, Out]) Spec() tool.Spec { return t.spec }

// Workspace returns the workspace whose files the tool's path arguments
// (tagged toolbelt:"path", so declared with sandbox.PathKeyword) name. The
// policy extension and the approval rules resolve those arguments through
// it (sandbox.Workspace.Resolve) before matching their globs. It is nil for
// tools without one.
func (t *typed[In, Out]) Workspace() *sandbox.Workspace { return t.ws }
func (t *typed[In, Out]) Check() error                  { return t.err }
func (t *typed[In, Out]) OutputConforms() bool          { return t.conforms }
func (t *typed[In, Out]) decode(raw json.RawMessage) (In, error) {
	var in In
	if len(raw) == 0 {
		return in, nil
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, tool.Errorf(tool.CodeInvalidArguments, "arguments do not decode: %v", err)
	}
	return in, nil
}

func (t *typed[In, Out]) Run(ctx context.Context, call tool.Call) (*tool.Result, error) {
	if t.err != nil {
		return nil, tool.NewError(tool.CodeInternal, t.err.Error())
	}
	in, err := t.decode(call.Args)
	if err != nil {
		return nil, err
	}
	return t.run(ctx, in)
}

// Resources declares the files a call touches (tool.ResourceDeclarer).
func (t *typed[In, Out]) Resources(args json.RawMessage) []tool.Resource {
	if t.res == nil {
		return nil
	}
	in, err := t.decode(args)
	if err != nil {
		return nil
	}
	return t.res(in)
}

// fileKey is the resource key of a workspace path: "file:" and the clean
// slash-separated path relative to the workspace.
func fileKey(ws *sandbox.Workspace, p string) string {
	if ws != nil {
		if rel, err := ws.Rel(p); err == nil {
			return "file:" + rel
		}
	}
	return writtenKey(ws, p)
}

// writtenKey is the key of p as written, made clean and relative to the
// workspace, symlinks not followed.
func writtenKey(ws *sandbox.Workspace, p string) string {
	p = filepath.Clean(p)
	if ws != nil && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(ws.Dir(), p); err == nil {
			p = rel
		}
	}
	return "file:" + path.Clean(strings.ReplaceAll(p, "\\", "/"))
}

// fileRes declares the file p names, and p as written when a symlink
// makes them differ: an earlier call may remove the link before this one
// runs, and p then names a file of its own.
func fileRes(ws *sandbox.Workspace, p string, a tool.Access) []tool.Resource {
	if p == "" {
		p = "."
	}
	rs := []tool.Resource{{Key: fileKey(ws, p), Access: a}}
	if k := writtenKey(ws, p); k != rs[0].Key {
		rs = append(rs, tool.Resource{Key: k, Access: a})
	}
	return rs
}

// structured returns a result with out as structured output and text as
// its content.
func structured(out any, text string) (*tool.Result, error) {
	b, err := json.Marshal(out)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInternal, "encoding output: %v", err)
	}
	r := &tool.Result{Output: b}
	if text != "" {
		r.Content = []tool.Content{tool.TextContent(text)}
	}
	return r, nil
}

func text(s string) *tool.Result {
	return &tool.Result{Content: []tool.Content{tool.TextContent(s)}}
}

func nilWorkspace(name string) error {
	return fmt.Errorf("tool %q: workspace is nil: open one with sandbox.OpenWorkspace(dir)", name)
}
