package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/toolbelt-go/toolbelt/internal/schema"
)

// FuncTool is a Go function exposed as a tool. Build it with Func or NewFunc.
type FuncTool[In, Out any] struct {
	spec       Spec
	fn         func(context.Context, In) (Out, error)
	resources  func(json.RawMessage) []Resource
	err        error
	structured bool // Out encodes as a JSON object: send it as structured output
	conforms   bool // every encoded Out satisfies the reflected output schema
	isString   bool // Out is a string: send it as a text block
}

// Func turns a Go function into a tool. The input schema is reflected from
// In and the output schema from Out (when Out is a struct) once, here, with
// github.com/invopop/jsonschema: nested structs are inlined, fields with
// omitempty are optional, and the jsonschema, jsonschema_description and
// toolbelt:"secret" tags are honoured.
//
// Tag mistakes (a description cut at a comma, required on an omitempty
// field, a chan or func field, a recursive type, two fields of one JSON
// name such as a field that shadows an embedded struct's) are reported by
// the returned tool's Check method, which the registry calls, so
//
//	reg.MustRegister(tool.Func("search", "Search the docs", search))
//
// fails loudly at start-up rather than sending a wrong schema to a model.
// Use NewFunc to get the error directly. The description tells the model
// what the tool does and when to use it: the registry refuses an empty one.
//
// At call time, the executor has already validated the arguments; Func
// decodes them into In, calls fn, and encodes Out. A struct or map Out
// becomes structured output; a string Out becomes a text block; anything
// else is JSON-encoded into a text block.
//
// Defaults, each changed by an Option: the risk is RiskUnset, which approval
// and authorisation judge as RiskMedium, so a call is asked about in the
// approval's auto mode until you say WithRisk(tool.RiskLow); no MCP hints are
// set (ReadOnly, Idempotent and the like are off, and the MCP export leaves
// them out, so clients assume what MCP assumes: possibly destructive, open
// world); no category, tags, version, modes (every mode allowed), timeout
// (the executor's default applies), rate limit, resources (batch calls do
// not serialise on anything) or secret fields beyond those tagged
// toolbelt:"secret"; RequiresApproval is off.
func Func[In, Out any](name, description string, fn func(context.Context, In) (Out, error), opts ...Option) Tool {
	t, err := NewFunc(name, description, fn, opts...)
	if err != nil {
		t.err = err
	}
	return t
}

// NewFunc is Func with the construction error returned.
func NewFunc[In, Out any](name, description string, fn func(context.Context, In) (Out, error), opts ...Option) (*FuncTool[In, Out], error) {
	o := build(name, description, opts)
	t := &FuncTool[In, Out]{spec: o.spec, fn: fn, resources: o.resources}
	var errs []error
	if err := CheckName(name); err != nil {
		errs = append(errs, err)
	}
	if fn == nil {
		errs = append(errs, fmt.Errorf("tool %q: function is nil", name))
	}
	if len(o.inSchema) > 0 {
		if err := schema.CheckObject(o.inSchema); err != nil {
			errs = append(errs, fmt.Errorf("tool %q: input schema: %w", name, err))
		} else {
			if err := schema.Float32Bounds(reflect.TypeFor[In](), o.inSchema); err != nil {
				// The validator checks a number exactly; a float32 rounds it.
				errs = append(errs, fmt.Errorf("tool %q: input schema: %w", name, err))
			}
			if err := schema.CaseTwinFields(reflect.TypeFor[In](), o.inSchema); err != nil {
				// The validator checks a key by its exact name; encoding/json
				// reads it into a field of that name in any case.
				errs = append(errs, fmt.Errorf("tool %q: input schema: %w", name, err))
			}
		}
		t.spec.InputSchema = o.inSchema
	} else if r, err := schema.Reflect(reflect.TypeFor[In]()); err != nil {
		errs = append(errs, fmt.Errorf("tool %q: input: %w", name, err))
	} else {
		t.spec.InputSchema = r.Schema
		t.spec.Secrets = append(t.spec.Secrets, r.Secrets...)
	}
	outT := reflect.TypeFor[Out]()
	for outT.Kind() == reflect.Pointer {
		outT = outT.Elem()
	}
	t.isString = reflect.TypeFor[Out]().Kind() == reflect.String
	t.structured = outT.Kind() == reflect.Struct || (outT.Kind() == reflect.Map && outT.Key().Kind() == reflect.String)
	switch {
	case len(o.outSchema) > 0:
		if err := schema.CheckObject(o.outSchema); err != nil {
			errs = append(errs, fmt.Errorf("tool %q: output schema: %w", name, err))
		}
		t.spec.OutputSchema = o.outSchema
	case outT.Kind() == reflect.Struct:
		if r, err := schema.ReflectOutput(outT); err != nil {
			errs = append(errs, fmt.Errorf("tool %q: output: %w", name, err))
		} else {
			t.spec.OutputSchema = r.Schema
			t.conforms = r.SelfValid
		}
	}
	if err := errors.Join(errs...); err != nil {
		return t, err
	}
	return t, nil
}

// Spec returns the tool's spec.
func (t *FuncTool[In, Out]) Spec() Spec { return t.spec }

// Check reports a construction error.
func (t *FuncTool[In, Out]) Check() error { return t.err }

// OutputConforms reports whether every output of the function satisfies its
// output schema by construction: the schema was reflected from Out, and Out
// carries no value constraints (enum, bounds, pattern, format) and no custom
// JSON encoding. The registry then skips compiling an output validator, and
// the executor skips validating output that could not fail.
func (t *FuncTool[In, Out]) OutputConforms() bool { return t.conforms }

// Resources implements ResourceDeclarer when WithResources was given.
func (t *FuncTool[In, Out]) Resources(args json.RawMessage) []Resource {
	if t.resources == nil {
		return nil
	}
	return t.resources(args)
}

// Run decodes the arguments into In, calls the function and encodes Out.
// The function's context carries the call's principal (tool.PrincipalFrom),
// when the call names one: a tool that answers per user or tenant reads it
// there. An anonymous call's (no ID) roles are left out: they grant
// nothing, as the auth extension judges them.
func (t *FuncTool[In, Out]) Run(ctx context.Context, call Call) (*Result, error) {
	if t.err != nil {
		return nil, NewError(CodeInternal, t.err.Error())
	}
	var in In
	if len(call.Args) > 0 {
		if err := json.Unmarshal(call.Args, &in); err != nil {
			return nil, Errorf(CodeInvalidArguments, "arguments do not decode into %T: %v", in, err)
		}
	}
	// The function's tool.PrincipalFrom(ctx) is the call's principal, and
	// none for an anonymous call (not one its caller's context carries: a
	// job's worker's).
	ctx = ActingFor(ctx, call.Principal)
	out, err := t.fn(ctx, in)
	if err != nil {
		return nil, funcError(ctx, err)
	}
	return t.encode(out)
}

// funcError gives a Go func's error its code. An error that carries one
// keeps it. A context error is the call's own (timeout, cancelled) only when
// the call's context has ended; otherwise it comes from a context the
// function made itself (a driver's timeout), and, like any other plain
// error, it is the tool's own failure: CodeToolError, its text for the model.
func funcError(ctx context.Context, err error) error {
	var te *Error
	var coded interface{ ToolError() *Error }
	switch {
	case errors.As(err, &te), errors.As(err, &coded):
		return err
	case ctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)):
		return err
	}
	return &Error{Code: CodeToolError, Message: err.Error(), Err: err,
		Retryable: errors.Is(err, context.DeadlineExceeded)}
}

func (t *FuncTool[In, Out]) encode(out Out) (*Result, error) {
	if t.isString {
		// Checked once at construction: converting every Out to an
		// interface here would cost an allocation per call.
		return &Result{Content: []Content{{Type: ContentText, Text: reflect.ValueOf(&out).Elem().String()}}}, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, Errorf(CodeInvalidOutput, "output of type %T does not encode as JSON: %v", out, err)
	}
	if t.structured && string(b) != "null" {
		return &Result{Output: b}, nil
	}
	return &Result{Content: []Content{{Type: ContentText, Text: string(b)}}}, nil
}
