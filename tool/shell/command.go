package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Config is the implementation of an argv tool: the "implementation" block
// of a tool file (the loader turns its command into Argv), or a Go literal.
type Config struct {
	// Argv is the command and its arguments. An argument may hold
	// placeholders, {name}, each filled with the call's argument of that
	// name; {{ and }} are literal braces. Argv[0] must be fixed. See the
	// package documentation for how values fill arguments.
	Argv []string `json:"argv"`
	// Workdir is the working directory, relative to the engine's workspace
	// ("" is the workspace itself), or absolute for an engine without one.
	// It is fixed: the model cannot choose it. An absolute directory outside
	// the engine's workspace is refused at construction.
	Workdir string `json:"workdir,omitempty"`
	// Env holds variables set for the command, on top of the engine's
	// scrubbed environment.
	Env map[string]string `json:"env,omitempty"`
	// Limits bound every run: what they leave unset comes from WithLimits,
	// which they may tighten but not exceed (a tool file's limits cannot
	// loosen the operator's); they are resolved against the engine's.
	Limits sandbox.Limits `json:"-"`
	// OutputBudget, when positive, overrides WithOutputBudget. From a tool
	// file (FromSpec, Kind) it may lower WithOutputBudget (or
	// DefaultOutputBudget), not raise it.
	OutputBudget int `json:"output_budget,omitempty"`
	// AllowOptionValues is AllowOptionValues for this tool.
	AllowOptionValues bool `json:"allow_option_values,omitempty"`
	// TrackChanges is TrackChanges for this tool.
	TrackChanges bool `json:"track_changes,omitempty"`
}

// fileLimits is the "limits" block of a tool file.
type fileLimits struct {
	Timeout     string `json:"timeout,omitempty"`
	CPUTime     string `json:"cpu_time,omitempty"`
	Memory      int64  `json:"memory,omitempty"`
	Processes   int    `json:"processes,omitempty"`
	FileSize    int64  `json:"file_size,omitempty"`
	OutputBytes int64  `json:"output_bytes,omitempty"`
}

// Command is a tool that runs one program with an argv built from a
// template, in a sandbox. Each placeholder fills exactly one argument (or,
// for an array, one argument per element); nothing is ever passed through a
// shell, so no value can become a second argument or a second command.
//
// Built with WithWorkspace, each run has what the workspace hides (a
// governance policy's forbidden_paths) masked, as a bash command has.
// Without it nothing is masked: a policy judges the tool's declared path
// arguments, and grep -rn {pattern} . reads every file the engine lets it,
// hidden ones included.
//
// Command implements tool.Tool and the approval package's
// Assessor and Subjecter interfaces.
type Command struct {
	spec   tool.Spec
	tpl    *template
	cfg    Config
	run    runner
	o      *options
	allowO bool
	ws     *sandbox.Workspace // WithWorkspace: whose hidden paths each run masks
}

var configKeys = []string{"command", "argv", "workdir", "env", "limits", "output_budget", "allow_option_values", "track_changes"}

// NewCommand builds an argv tool named name. Its input schema is generated
// from the placeholders (each a required string) unless WithInputSchema
// gives one; its risk is tool.RiskMedium unless WithRisk says otherwise.
// WithWorkspace masks what the workspace hides from each run.
//
//	shell.NewCommand("git_log", "Show recent commits", sb,
//	    []string{"git", "log", "--max-count=20", "--max-count={count}", "--", "{path}"},
//	    shell.WithWorkspace(ws))
func NewCommand(name, description string, sb sandbox.Sandbox, argv []string, opts ...Option) (*Command, error) {
	o := newOptions(opts)
	spec := tool.Spec{Name: name, Description: description, Risk: tool.RiskMedium, InputSchema: o.inSchema}
	if o.risk != nil {
		spec.Risk = *o.risk
	}
	for _, fn := range o.specFns {
		fn(&spec)
	}
	return newCommand(spec, sb, Config{Argv: argv}, o)
}

// New builds an argv tool from a complete spec (its Risk is used as given)
// and a Config. The spec's input schema must list every placeholder as a
// property; a schema with no properties is replaced by one generated from
// the placeholders. Every problem is reported at once, as *tool.ConfigError
// values joined with errors.Join.
func New(spec tool.Spec, sb sandbox.Sandbox, cfg Config, opts ...Option) (*Command, error) {
	return newCommand(spec, sb, cfg, newOptions(opts))
}

func newCommand(spec tool.Spec, sb sandbox.Sandbox, cfg Config, o *options) (*Command, error) {
	var errs []error
	if err := tool.CheckName(spec.Name); err != nil {
		errs = append(errs, &tool.ConfigError{Field: "name", Message: err.Error()})
	}
	if sb == nil {
		errs = append(errs, &tool.ConfigError{Message: "no sandbox: a shell tool runs only in a sandbox engine; pass one (sandbox.New(\"bwrap\", sandbox.WithWorkspace(dir))), or shell.WithSandbox(sb) to FromSpec/Kind"})
	}
	tpl, gen, terrs := compileTemplate(cfg.Argv, spec.InputSchema)
	errs = append(errs, terrs...)
	if gen != nil {
		spec.InputSchema = gen
	}
	if len(spec.InputSchema) == 0 {
		spec.InputSchema = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
	}
	if err := schema.CheckObject(spec.InputSchema); err != nil {
		errs = append(errs, &tool.ConfigError{Field: "input_schema", Message: err.Error()})
	}
	if err := cfg.Limits.Validate(); err != nil {
		errs = append(errs, &tool.ConfigError{Field: "limits", Message: err.Error()})
	}
	if sb != nil {
		wd, err := engineWorkdir(sb, cfg.Workdir)
		if err != nil {
			errs = append(errs, &tool.ConfigError{Field: "workdir", Message: err.Error()})
		}
		cfg.Workdir = wd
	}
	if o.wsSet {
		if err := maskWorkspace(sb, o.ws); err != nil {
			errs = append(errs, &tool.ConfigError{Message: err.Error()})
		}
	}
	env := make([]string, 0, len(cfg.Env)+len(o.env))
	env = append(env, o.env...)
	keys := make([]string, 0, len(cfg.Env))
	for k := range cfg.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(cfg.Env[k], 0) {
			errs = append(errs, &tool.ConfigError{Field: "env." + k, Message: fmt.Sprintf("%q is not a valid variable name and value", k)})
			continue
		}
		env = append(env, k+"="+cfg.Env[k])
	}
	// The config's limits take what they leave unset from WithLimits, and
	// may not ask for more than it gives (a tool file cannot loosen the
	// operator's limits).
	limits := o.limits
	if cfg.Limits != (sandbox.Limits{}) {
		l, err := cfg.Limits.Resolve(o.limits)
		if err != nil {
			errs = append(errs, &tool.ConfigError{Field: "limits", Message: err.Error() + " (shell.WithLimits)"})
		}
		limits = l
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	budget := o.budget
	if cfg.OutputBudget > 0 {
		budget = cfg.OutputBudget
	}
	return &Command{
		spec:   spec,
		tpl:    tpl,
		cfg:    cfg,
		o:      o,
		allowO: o.allowOptions || cfg.AllowOptionValues,
		ws:     o.ws,
		run:    runner{sb: sb, env: env, limits: limits, budget: budget, track: o.track || cfg.TrackChanges},
	}, nil
}

// maskWorkspace checks the workspace given to WithWorkspace against the
// engine: the mask names paths relative to the engine's workspace, so ws's
// directory must be it. An engine that does not report its workspace is
// taken as is, as NewBash takes it.
func maskWorkspace(sb sandbox.Sandbox, ws *sandbox.Workspace) error {
	if ws == nil {
		return errors.New("shell.WithWorkspace: the workspace is nil: pass the *sandbox.Workspace whose hidden paths (a policy's forbidden_paths) the command must not see")
	}
	w, ok := sb.(interface{ Workspace() string })
	if sb == nil || !ok {
		return nil
	}
	d := w.Workspace()
	if d == "" {
		return fmt.Errorf("shell.WithWorkspace: the %s engine has no workspace, so what %q hides could not be masked from the command: build the engine with sandbox.WithWorkspace(ws.Dir())", sb.Name(), ws.Dir())
	}
	rd, err1 := filepath.EvalSymlinks(d)
	rw, err2 := filepath.EvalSymlinks(ws.Dir())
	if err1 != nil || err2 != nil || rd != rw {
		return fmt.Errorf("shell.WithWorkspace: the %s engine's workspace %q is not the workspace's directory %q, so its hidden paths would be masked in the wrong place: build the engine with sandbox.WithWorkspace(ws.Dir()), or pass the *sandbox.Workspace opened on %q", sb.Name(), d, ws.Dir(), d)
	}
	return nil
}

// FromSpec builds an argv tool from a spec and its implementation block
// encoded as JSON ({"argv": [...], "workdir": ..., "env": {...}, "limits":
// {"timeout": "30s", "cpu_time": "10s", "memory": 1073741824, "processes":
// 64, "file_size": ..., "output_bytes": ...}, "output_budget": ...,
// "allow_option_values": false, "track_changes": false}, or "command": a
// template string or a list in place of "argv"); unknown keys are errors,
// and so are limits and an output_budget over WithLimits' and
// WithOutputBudget's (a file may tighten them, not loosen). The sandbox comes from
// WithSandbox. Its signature matches the tool loader's kind factories
// (loader.KindFunc).
func FromSpec(spec tool.Spec, impl json.RawMessage, opts ...Option) (tool.Tool, error) {
	return fromSpec(spec, impl, newOptions(opts))
}

// Kind returns a factory for the tool loader's "shell" kind. A tool file
// gives implementation.command as a template string ("ls -la {dir}", parsed
// with ParseCommandTemplate) or a list of arguments. Give WithWorkspace
// with the workspace the engine runs in, so that what it hides (a
// policy's forbidden_paths) is masked from the file's commands; without
// it they are not masked:
//
//	loader.Loader{Kinds: map[string]loader.KindFunc{"shell": shell.Kind(shell.WithSandbox(sb), shell.WithWorkspace(ws))}}
func Kind(opts ...Option) func(tool.Spec, json.RawMessage) (tool.Tool, error) {
	o := newOptions(opts)
	return func(spec tool.Spec, impl json.RawMessage) (tool.Tool, error) { return fromSpec(spec, impl, o) }
}

func fromSpec(spec tool.Spec, impl json.RawMessage, o *options) (tool.Tool, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(impl, &top); err != nil {
		return nil, &tool.ConfigError{Message: "implementation must be a JSON object: " + err.Error()}
	}
	var errs []error
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(configKeys, k) {
			errs = append(errs, &tool.ConfigError{Field: k, Message: fmt.Sprintf("unknown key %q: known keys are %s", k, strings.Join(configKeys, ", "))})
		}
	}
	var cfg Config
	if err := json.Unmarshal(impl, &cfg); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			errs = append(errs, &tool.ConfigError{Field: te.Field, Message: fmt.Sprintf("is a JSON %s: want %s", te.Value, te.Type)})
		} else {
			errs = append(errs, &tool.ConfigError{Message: "implementation does not decode: " + err.Error()})
		}
		return nil, errors.Join(errs...)
	}
	if raw, ok := top["limits"]; ok {
		l, lerrs := parseLimits(raw)
		errs = append(errs, lerrs...)
		cfg.Limits = l
	}
	// A tool file may lower the operator's output budget, not raise it, as
	// for its limits: the budget bounds what each call puts before the model.
	if o.budget > 0 && cfg.OutputBudget > o.budget {
		errs = append(errs, &tool.ConfigError{Field: "output_budget", Message: fmt.Sprintf(
			"%d bytes is over the %d bytes of each stream the operator lets a shell tool show the model (shell.WithOutputBudget): give %d or less, or have the operator raise WithOutputBudget",
			cfg.OutputBudget, o.budget, o.budget)})
	}
	if raw, ok := top["command"]; ok {
		argv, err := commandArgv(raw)
		switch {
		case err != nil:
			errs = append(errs, err)
		case len(top["argv"]) > 0:
			errs = append(errs, &tool.ConfigError{Field: "argv", Message: "give the command once: command (a template or a list) or argv, not both"})
		default:
			cfg.Argv = argv
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	t, err := newCommand(spec, o.sb, cfg, o)
	if err != nil {
		if _, ok := top["command"]; ok {
			// The file said command, not argv: say so in the errors.
			err = renameArgv(err)
		}
		return nil, err
	}
	return t, nil
}

// engineWorkdir checks an absolute working directory against the engine's
// workspace, when the engine reports one: a directory outside it would
// fail every run, so it is refused; one inside it is returned as the
// engine spells its workspace (the same directory through a symlink is
// otherwise judged outside). Other directories are returned as given.
func engineWorkdir(sb sandbox.Sandbox, dir string) (string, error) {
	w, ok := sb.(interface{ Workspace() string })
	if !ok || dir == "" || !filepath.IsAbs(dir) || w.Workspace() == "" {
		return dir, nil
	}
	ws := w.Workspace()
	rws, err1 := filepath.EvalSymlinks(ws)
	rdir, err2 := filepath.EvalSymlinks(dir)
	if err1 != nil || err2 != nil {
		return dir, nil // judged by the engine at run time
	}
	rel, err := filepath.Rel(rws, rdir)
	if err != nil || rel != "." && !filepath.IsLocal(rel) {
		return dir, fmt.Errorf("%q is outside the engine's workspace %q, so every run would be refused: use a directory inside it, or build the engine with sandbox.WithWorkspace on this one", dir, ws)
	}
	return filepath.Join(ws, rel), nil
}

// renameArgv reports errors about argv as errors about command.
func renameArgv(err error) error {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
		var ce *tool.ConfigError
		if errors.As(e, &ce) && (ce.Field == "argv" || strings.HasPrefix(ce.Field, "argv.")) {
			out[i] = &tool.ConfigError{Field: "command" + strings.TrimPrefix(ce.Field, "argv"), Message: ce.Message}
		}
	}
	return errors.Join(out...)
}

func parseLimits(raw json.RawMessage) (sandbox.Limits, []error) {
	var fl fileLimits
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.DisallowUnknownFields()
	if err := d.Decode(&fl); err != nil {
		return sandbox.Limits{}, []error{&tool.ConfigError{Field: "limits", Message: "must be a mapping of timeout, cpu_time (durations such as 30s), memory, processes, file_size, output_bytes (numbers): " + err.Error()}}
	}
	var errs []error
	dur := func(field, s string) time.Duration {
		if s == "" {
			return 0
		}
		v, err := time.ParseDuration(s)
		if err != nil || v < 0 {
			errs = append(errs, &tool.ConfigError{Field: "limits." + field, Message: fmt.Sprintf("%q is not a duration: write it like 30s or 2m", s)})
		}
		return v
	}
	l := sandbox.Limits{
		Timeout: dur("timeout", fl.Timeout), CPUTime: dur("cpu_time", fl.CPUTime),
		Memory: fl.Memory, Processes: fl.Processes, FileSize: fl.FileSize, OutputBytes: fl.OutputBytes,
	}
	return l, errs
}

// Spec returns the tool's spec.
func (c *Command) Spec() tool.Spec { return c.spec }

// Argv returns the expanded argv for args, as Run would run it, or the error
// Run would fail with.
func (c *Command) Argv(args json.RawMessage) ([]string, error) {
	m, err := decodeArgs(args)
	if err != nil {
		return nil, err
	}
	argv, terr := c.tpl.expand(m, c.allowO)
	if terr != nil {
		return nil, terr
	}
	return argv, nil
}

// Assess classifies the command line the arguments expand to (the approval
// package's Assessor interface), as run in the tool's Workdir: "tee config"
// run in .git writes .git/config. Arguments that do not expand are judged
// classify.Dangerous: what cannot be judged is never safe.
func (c *Command) Assess(args json.RawMessage) classify.Verdict {
	argv, err := c.Argv(args)
	if err != nil {
		return classify.Verdict{Level: classify.Dangerous, Reasons: []string{"arguments cannot be expanded: " + err.Error()}}
	}
	_, rel := c.workdir()
	return c.o.assessor.Assess(judged(quoteArgv(argv), rel))
}

// Workdir returns the directory on the host the command runs in, the same
// for every call: the engine's workspace, or Config.Workdir (inside it). A
// relative path argument is opened from there, and the governance policy
// judges it there (policy.Workdirer). It is "" when the engine does not
// say where it runs a command.
func (c *Command) Workdir(json.RawMessage) string {
	abs, _ := c.workdir()
	return abs
}

// workdir returns the directory the command runs in, on the host (abs) and
// relative to the engine's workspace (rel; "" for the workspace itself, or
// when the engine has none), as the engine places Config.Workdir.
func (c *Command) workdir() (abs, rel string) {
	d := c.cfg.Workdir
	w, ok := c.run.sb.(interface{ Workspace() string })
	switch {
	case !ok || w.Workspace() == "":
		if filepath.IsAbs(d) {
			return filepath.Clean(d), ""
		}
		if ok && d == "" {
			return "/", "" // sandbox.Spec.Dir's rule
		}
		return "", "" // not known, or refused at run
	case d == "":
		return w.Workspace(), ""
	case filepath.IsAbs(d):
		r, err := filepath.Rel(w.Workspace(), d)
		if err != nil || !filepath.IsLocal(r) {
			r = "" // refused at construction
		}
		return filepath.Clean(d), r
	default:
		return filepath.Join(w.Workspace(), d), d
	}
}

// Subject returns the command line the arguments expand to, quoted as a
// shell would need it (the approval package's Subjecter interface), as
// Assess judges it: run in a Workdir inside the workspace, it begins with
// cd into it, so rules read its relative paths where they land, as for a
// bash call's workdir.
func (c *Command) Subject(args json.RawMessage) string {
	argv, err := c.Argv(args)
	if err != nil {
		return ""
	}
	_, rel := c.workdir()
	return judged(quoteArgv(argv), rel)
}

// Run expands the template, refuses a Blocked command line (unless
// AllowBlocked), and runs the argv in the sandbox, with what the
// workspace hides masked when the tool was built WithWorkspace.
func (c *Command) Run(ctx context.Context, call tool.Call) (*tool.Result, error) {
	argv, err := c.Argv(call.Args)
	if err != nil {
		return nil, err
	}
	_, rel := c.workdir()
	v := c.o.assessor.Assess(judged(quoteArgv(argv), rel))
	if v.Level >= classify.Blocked && !c.o.allowBlocked {
		res := refuseBlocked(&call, v, "the command line "+quoteArgv(argv))
		return res, res.Error
	}
	var mask []string
	if c.ws != nil {
		// The same mask and the same turn as a bash command's: a bash
		// command renaming the directory above a hidden path while this
		// run's mask is listed and mounted would move the files from
		// under it (maskTurn).
		m, release, err := maskTurn(ctx, c.ws)
		if err != nil {
			return nil, err
		}
		defer release()
		mask = m
	}
	return c.run.run(ctx, argv, c.cfg.Workdir, mask, &v)
}

func decodeArgs(args json.RawMessage) (map[string]any, error) {
	if len(args) == 0 || string(args) == "null" {
		return map[string]any{}, nil
	}
	m, err := schema.Decode(args)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments: %v", err)
	}
	return m, nil
}

// commandArgv reads implementation.command: a template string
// (ParseCommandTemplate) or a list of argument templates.
func commandArgv(raw json.RawMessage) ([]string, error) {
	var tmpl string
	if err := json.Unmarshal(raw, &tmpl); err == nil {
		argv, err := ParseCommandTemplate(tmpl)
		if err != nil {
			return nil, &tool.ConfigError{Field: "command", Message: strings.TrimPrefix(err.Error(), "command template ")}
		}
		return argv, nil
	}
	var list []*string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, &tool.ConfigError{Field: "command", Message: "must be a string or a list of strings"}
	}
	if len(list) == 0 {
		return nil, &tool.ConfigError{Field: "command", Message: "is an empty list: name the program first"}
	}
	argv := make([]string, 0, len(list))
	for i, a := range list {
		if a == nil {
			return nil, &tool.ConfigError{Field: fmt.Sprintf("command.%d", i), Message: "must hold only strings"}
		}
		if err := checkPlaceholders(*a); err != nil {
			return nil, &tool.ConfigError{Field: fmt.Sprintf("command.%d", i), Message: fmt.Sprintf("argument %q %s", *a, err.Error())}
		}
		argv = append(argv, *a)
	}
	return argv, nil
}
