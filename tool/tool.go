package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/toolbelt-go/toolbelt/internal/schema"
)

// Tool is a backend: anything that can run a call. Go functions (Func), shell
// commands, HTTP endpoints and the tools of MCP servers are all Tools, and
// the executor never needs to know which.
//
// Run receives arguments that the executor has already validated against
// Spec().InputSchema. It returns the output (Output, Content, Usage,
// Metadata); the executor fills in the call id, status and timings. A
// non-nil error becomes the result's *Error (see AsError).
type Tool interface {
	Spec() Spec
	Run(ctx context.Context, call Call) (*Result, error)
}

// As finds the first tool in t's chain that is a T, as errors.As finds an
// error: t itself, then, while a tool has an Unwrap() Tool method, the tool
// it wraps. A wrapper (a tool file's go tool over a Go implementation, a
// tool with a spec of its own) thereby keeps what its implementation
// declares: how it judges its calls, the workspace its paths are in.
func As[T any](t Tool) (T, bool) {
	for range 16 { // wrappers are one or two deep; a cycle ends here
		if x, ok := t.(T); ok {
			return x, true
		}
		u, ok := t.(interface{ Unwrap() Tool })
		if !ok {
			break
		}
		t = u.Unwrap()
	}
	var zero T
	return zero, false
}

// Unwrapped returns the tools t runs beneath it: while a tool has an
// Unwrap() Tool method, the tool it wraps, up to 16 deep (t itself is not
// among them). A tool registered again under another name runs the
// original: rules written for the original's name hold for it too.
func Unwrapped(t Tool) []Tool {
	var out []Tool
	for range 16 {
		u, ok := t.(interface{ Unwrap() Tool })
		if !ok {
			break
		}
		if t = u.Unwrap(); t == nil {
			break
		}
		out = append(out, t)
	}
	return out
}

// UnwrappedNames returns the names of the tools t runs beneath it
// (Unwrapped) other than name, each once: the names under which rules
// written for those tools (a deny rule, a session denial) hold for t's
// calls too.
func UnwrappedNames(t Tool, name string) []string {
	var out []string
	for _, u := range Unwrapped(t) {
		if n := u.Spec().Name; n != name && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// Checker is implemented by tools that can report a construction problem.
// The registry refuses a tool whose Check returns an error. Func returns a
// Tool whose Check reports bad struct tags, so the one-line
// reg.MustRegister(tool.Func(...)) still surfaces them.
type Checker interface {
	Check() error
}

// OutputConformer is implemented by tools that know their structured output
// always satisfies their output schema (tool.Func does, for output types
// without value constraints). The registry compiles no output validator for
// them, so the executor does no work that could not find an error.
type OutputConformer interface {
	OutputConforms() bool
}

// Access says whether a call reads or writes a resource.
type Access uint8

// Resource access modes.
const (
	Read Access = iota
	Write
)

// Resource is something a call touches ("file:/src/main.go", "repo:api",
// "lock:deploy"). Calls on the same resource are serialised by the executor:
// readers share, writers exclude.
type Resource struct {
	Key    string
	Access Access
}

// ResourceDeclarer is implemented by tools that know, from the arguments,
// which resources a call touches.
type ResourceDeclarer interface {
	Resources(args json.RawMessage) []Resource
}

// Option configures a tool built by Func or New.
type Option func(*options)

type options struct {
	spec      Spec
	inSchema  json.RawMessage
	outSchema json.RawMessage
	resources func(json.RawMessage) []Resource
}

// WithRisk sets the tool's risk.
func WithRisk(r Risk) Option { return func(o *options) { o.spec.Risk = r } }

// WithCategory sets the tool's category.
func WithCategory(c string) Option { return func(o *options) { o.spec.Category = c } }

// WithTags adds tags.
func WithTags(tags ...string) Option {
	return func(o *options) { o.spec.Tags = append(o.spec.Tags, tags...) }
}

// WithVersion sets the tool's version.
func WithVersion(v string) Option { return func(o *options) { o.spec.Version = v } }

// WithTimeout sets the tool's default deadline for one run.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.spec.Timeout = d } }

// WithApproval marks the tool as needing a human's approval on every call;
// an executor without an approval extension refuses its calls.
func WithApproval() Option { return func(o *options) { o.spec.RequiresApproval = true } }

// WithModes restricts the operating modes the tool may run in.
func WithModes(modes ...string) Option {
	return func(o *options) { o.spec.AllowedModes = append(o.spec.AllowedModes, modes...) }
}

// WithRateLimit sets the tool's own limit in calls per hour.
func WithRateLimit(perHour int) Option { return func(o *options) { o.spec.RateLimitPerHour = perHour } }

// WithAnnotations sets the MCP hints.
func WithAnnotations(a Annotations) Option { return func(o *options) { o.spec.Annotations = a } }

// ReadOnly marks the tool read-only and idempotent (safe to cache and retry).
func ReadOnly() Option {
	return func(o *options) {
		o.spec.Annotations.ReadOnly = true
		o.spec.Annotations.Idempotent = true
		o.spec.Annotations.Destructive = false
	}
}

// WithSecrets names argument fields (dotted paths) to redact wherever the SDK
// writes arguments, in addition to fields tagged `toolbelt:"secret"`.
func WithSecrets(paths ...string) Option {
	return func(o *options) { o.spec.Secrets = append(o.spec.Secrets, paths...) }
}

// WithInputSchema replaces the reflected input schema with raw, which must be
// an object schema. Arguments are still decoded into the Func's input type,
// so NewFunc refuses a schema that would let through values that type reads
// otherwise than the schema checked them: an exclusive bound (or a bound,
// const or enum under not or an if) on a float32 field, which rounds; a
// field named in two cases, or matched in one case only by a
// patternProperties, where encoding/json fills one field from either
// spelling; and a ref it cannot follow over such a field.
func WithInputSchema(raw json.RawMessage) Option { return func(o *options) { o.inSchema = raw } }

// WithOutputSchema replaces the reflected output schema with raw.
func WithOutputSchema(raw json.RawMessage) Option { return func(o *options) { o.outSchema = raw } }

// WithResources declares the resources a call touches, for conflict locks.
func WithResources(fn func(args json.RawMessage) []Resource) Option {
	return func(o *options) { o.resources = fn }
}

func build(name, description string, opts []Option) *options {
	o := &options{}
	o.spec.Name = name
	o.spec.Description = description
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	return o
}

// RunFunc is the signature of a raw backend for New.
type RunFunc func(ctx context.Context, call Call) (*Result, error)

type rawTool struct {
	spec      Spec
	run       RunFunc
	resources func(json.RawMessage) []Resource
	err       error
}

// New builds a tool from a JSON Schema and a function that receives the raw
// call. Use it for tools whose arguments are not a Go struct. The schema is
// given with WithInputSchema (default: an object with no properties); it is
// checked to be an object schema and compiled when the tool is registered.
func New(name, description string, run RunFunc, opts ...Option) Tool {
	o := build(name, description, opts)
	t := &rawTool{spec: o.spec, run: run, resources: o.resources}
	t.spec.InputSchema = o.inSchema
	t.spec.OutputSchema = o.outSchema
	if len(t.spec.InputSchema) == 0 {
		t.spec.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	var errs []error
	if err := CheckName(name); err != nil {
		errs = append(errs, err)
	}
	if run == nil {
		errs = append(errs, fmt.Errorf("tool %q: run function is nil: pass the function that does the work", name))
	}
	if err := schema.CheckObject(t.spec.InputSchema); err != nil {
		errs = append(errs, fmt.Errorf("tool %q: input schema: %w", name, err))
	}
	if len(t.spec.OutputSchema) > 0 {
		if err := schema.CheckObject(t.spec.OutputSchema); err != nil {
			errs = append(errs, fmt.Errorf("tool %q: output schema: %w", name, err))
		}
	}
	t.err = errors.Join(errs...)
	return t
}

func (t *rawTool) Spec() Spec   { return t.spec }
func (t *rawTool) Check() error { return t.err }
func (t *rawTool) Run(ctx context.Context, call Call) (*Result, error) {
	if t.err != nil {
		return nil, NewError(CodeInternal, t.err.Error())
	}
	return t.run(ctx, call)
}
func (t *rawTool) Resources(args json.RawMessage) []Resource {
	if t.resources == nil {
		return nil
	}
	return t.resources(args)
}
