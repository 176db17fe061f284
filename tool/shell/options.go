package shell

import (
	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Option configures a shell tool (NewCommand, New, FromSpec, Kind, NewBash).
type Option func(*options)

type options struct {
	sb           sandbox.Sandbox
	ws           *sandbox.Workspace
	wsSet        bool // WithWorkspace was given, nil or not
	budget       int
	budgetSet    bool
	assessor     classify.Assessor
	allowBlocked bool
	allowOptions bool
	track        bool
	limits       sandbox.Limits
	env          []string
	name         string
	description  string
	risk         *tool.Risk
	inSchema     []byte
	specFns      []func(*tool.Spec)
}

func newOptions(opts []Option) *options {
	o := &options{}
	for _, f := range opts {
		if f != nil {
			f(o)
		}
	}
	if !o.budgetSet {
		o.budget = DefaultOutputBudget
	}
	if o.assessor == nil {
		o.assessor = classify.Default()
	}
	return o
}

// WithSandbox sets the sandbox that FromSpec and Kind build their tools on
// (New and NewBash take it as an argument). Required there: a file-defined
// shell tool never runs outside a sandbox engine.
func WithSandbox(sb sandbox.Sandbox) Option { return func(o *options) { o.sb = sb } }

// WithWorkspace masks what ws hides from every run of a Command tool
// (NewCommand, New, FromSpec, Kind), as the bash tool does with its
// workspace: before each run the tool lists what ws's hide and deny rules
// name (sandbox.Workspace.Masked: a governance policy's forbidden_paths
// arrive through sandbox.WithHide) and passes it as sandbox.Spec.Mask, so
// grep -rn {pattern} . or tar -cf - {dir} finds nothing in a hidden
// directory. A run with something to mask takes its turn among the
// workspace's shell commands, as a bash command does. bwrap and gvisor mask;
// the process and landlock engines refuse a run with anything to mask.
// ws's directory must be the engine's workspace (sandbox.WithWorkspace
// (ws.Dir())): the tool is refused at construction otherwise.
//
// Without it a Command tool is not masked: it reads whatever its argv
// reaches in the engine, and a policy judges only its declared path
// arguments. Give it to every Command tool in a workspace with hide or deny
// rules. NewBash takes its workspace as an argument and ignores this
// option.
func WithWorkspace(ws *sandbox.Workspace) Option {
	return func(o *options) { o.ws, o.wsSet = ws, true }
}

// WithOutputBudget sets how many bytes of each stream go into the text the
// model reads (default DefaultOutputBudget); the head and the tail are kept
// around a marker stating the cut size. The whole capture stays in the
// result's metadata. n <= 0 keeps everything the sandbox captured.
func WithOutputBudget(n int) Option {
	return func(o *options) { o.budget, o.budgetSet = n, true }
}

// WithAssessor replaces the command classifier (default classify.Default()).
func WithAssessor(a classify.Assessor) Option { return func(o *options) { o.assessor = a } }

// AllowBlocked turns off the default refusal of commands the classifier
// judges classify.Blocked. The verdict is still reported (Assess, result
// metadata) for an approval extension to act on. Use it only when something
// else (a human approver on every call) stands between the model and the
// sandbox.
func AllowBlocked() Option { return func(o *options) { o.allowBlocked = true } }

// AllowOptionValues lets a placeholder value that starts with "-" fill an
// argument that begins with the placeholder before a literal "--" that ends
// the program's options (see the package documentation), where the
// program would read it as an option, a value holding "=" where make
// would read it as a variable definition, and "!", "(", ")" or "," where
// find would read it as its expression. By default such a value is
// refused with tool.CodeInvalidArguments.
func AllowOptionValues() Option { return func(o *options) { o.allowOptions = true } }

// TrackChanges lists what each run created, modified and deleted in the
// workspace (sandbox.Spec.TrackChanges): in the result's metadata
// (MetaChanges), and at the end of the text the model reads ("[changed:
// modified main.go, created main_test.go]"), so that the model knows what
// its command did, and an audit trail that keeps results keeps it too. It
// costs a walk of the workspace before and after each run, a few
// microseconds an entry; the engine must have a workspace.
func TrackChanges() Option { return func(o *options) { o.track = true } }

// WithLimits sets the sandbox limits of every run of the tool; they are
// resolved against the engine's (a tool never gets more than its engine).
// A command's own limits (CommandConfig.Limits, a tool file's "limits")
// take what they leave unset from these and may not exceed them.
func WithLimits(l sandbox.Limits) Option { return func(o *options) { o.limits = l } }

// WithEnv adds NAME=value variables to every run, on top of the engine's
// scrubbed environment.
func WithEnv(kv ...string) Option {
	return func(o *options) { o.env = append(o.env, kv...) }
}

// WithName sets the name of a NewBash tool (default "bash"). The other
// constructors take the name as an argument (NewCommand) or from the spec.
func WithName(name string) Option { return func(o *options) { o.name = name } }

// WithDescription sets the description of a NewBash tool.
func WithDescription(d string) Option { return func(o *options) { o.description = d } }

// WithRisk sets the risk of a NewCommand tool (default RiskMedium) or a
// NewBash tool (default RiskHigh). New, FromSpec and Kind use the spec's
// risk as given.
func WithRisk(r tool.Risk) Option { return func(o *options) { o.risk = &r } }

// WithInputSchema sets the input schema of a NewCommand tool (default: one
// generated from the placeholders, each a required string).
func WithInputSchema(raw []byte) Option { return func(o *options) { o.inSchema = raw } }

// WithSpec adjusts the spec of a NewCommand or NewBash tool after the
// defaults are applied: category, tags, timeout, annotations, modes.
func WithSpec(fn func(*tool.Spec)) Option {
	return func(o *options) { o.specFns = append(o.specFns, fn) }
}
