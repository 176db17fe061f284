// Package extension is the middleware contract of the executor.
//
// An Extension wraps the next Handler, the way net/http middleware wraps an
// http.Handler: it can look at the request before, at the result after,
// short-circuit with its own result (denied, cached, rate limited), or
// rewrite the arguments (the executor validates rewritten arguments again
// before the backend runs).
//
// Extensions are ordered by Priority: lower runs outside. The built-ins use
// the Priority* constants below, so a user's extension can be placed between
// them by choosing a number, and WithPriority re-places any extension.
package extension

import (
	"time"

	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime/debug"
	"sort"
	"strconv"

	"github.com/toolbelt-go/toolbelt/internal/errtext"
	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Request is what flows through the chain: the call and the tool it targets.
// Extensions may change Call.Args (and other Call fields) before calling
// next; Spec and Tool are read-only.
type Request struct {
	Call tool.Call
	Spec *tool.Spec
	Tool tool.Tool
	// Attempt is 1 for the first run of the backend; the retry extension
	// increments it.
	Attempt int
	// Validated is the arguments as the executor last validated them. Before
	// the backend runs, the executor compares Call.Args with it and validates
	// again if an extension rewrote them. Extensions read it (for example to
	// hash exactly what was approved) and must not change it.
	Validated json.RawMessage
	// Values carries facts from one extension to those further in (for
	// example the approval extension's risk verdict). Use Set and Get.
	Values map[string]any
	// Received is when the executor received the call (the result's
	// StartedAt). Extensions that time the whole call (logging, metrics)
	// measure from it instead of reading the clock again; it is zero in a
	// Request built by hand, so fall back to the clock then.
	Received time.Time
	// Queue is the call's place in the executor's lock queues (nil in a
	// Request built by hand). An extension that waits for something other
	// than the call's resources, a person's decision say, waits inside
	// Queue.StepAside, so that the calls queued behind it on the same
	// files are not held up meanwhile.
	Queue LockQueue
}

// LockQueue is a call's place in the executor's lock queues, which order
// the calls on the same resources (tool.ResourceDeclarer).
type LockQueue interface {
	// StepAside runs wait with the call out of the queues: the calls
	// behind it go ahead, and it queues again, behind them, when it next
	// reaches its backend.
	StepAside(wait func())
	// Behind reports whether the call's turn has not come yet: a call
	// submitted before it holds, or waits for, one of its resources in a
	// way that excludes it (a writer ahead of a reader, anyone ahead of a
	// writer), or the call stepped aside and has not queued again. An
	// answer given now, not by the backend (a cache's), would not see what
	// those calls do. It speaks of the arguments the call was queued for:
	// a call whose arguments were rewritten (Request.Validated differs)
	// queues for the new ones only when it reaches its backend.
	Behind() bool
}

// Set stores a value for extensions further in the chain.
func (r *Request) Set(key string, v any) {
	if r.Values == nil {
		r.Values = make(map[string]any, 2)
	}
	r.Values[key] = v
}

// Get reads a value stored by Set.
func (r *Request) Get(key string) (any, bool) {
	v, ok := r.Values[key]
	return v, ok
}

// Handler runs a request and returns its result, never nil.
//
// An extension may call next more than once (a retry) and also more than
// once at a time (a hedge), each time with its own copy of the Request.
// Every run works under the call's resource locks, which the executor
// releases when the call has returned and no run is still in its backend:
// a run the extension leaves going after it returns keeps them until its
// backend returns, and one that reaches its backend only after the call
// returned queues for them anew. A run whose arguments an extension
// rewrote to name other resources queues for those, behind the runs still
// using the old ones. The result a handler returns is the executor's to
// change (it stamps the call's identity on it and cuts it to the output
// cap): an extension that keeps results (a cache) returns a copy.
type Handler func(ctx context.Context, req *Request) *tool.Result

// Extension is middleware for the executor.
type Extension interface {
	// Name identifies the extension in logs and errors.
	Name() string
	// Priority orders the chain: lower runs outside (sees the call first and
	// the result last).
	Priority() int
	// Wrap returns a handler that does the extension's work around next.
	Wrap(next Handler) Handler
}

// NameApproval is the name of the extension that reads
// tool.Spec.RequiresApproval (extension/approvalgate's). An executor without
// an extension of this name refuses the calls of tools that require
// approval, since nothing else would ask; an approval extension of your own
// takes this name to read the flag instead.
const NameApproval = "approval"

// Priorities of the built-in extensions, outermost first. Leave gaps of 100
// so that user extensions can be placed in between.
const (
	PriorityLogging   = 100
	PriorityMetrics   = 200
	PriorityTracing   = 300
	PriorityAudit     = 400
	PriorityAuth      = 500
	PriorityPolicy    = 600
	PriorityRateLimit = 700
	PriorityApproval  = 800
	PriorityCache     = 900
	PriorityRetry     = 1000
	// PriorityDefault is the priority of user extensions that do not care.
	PriorityDefault = 550
)

// Observer is implemented by extensions that also want to see the calls
// the executor refused before the chain: an unknown tool, arguments that are
// not a JSON object or break the schema, a context already done. Such calls
// run nothing and no extension can change their outcome; observers (logging,
// metrics, audit) record them so that every call is accounted for. spec is
// nil for an unknown tool. Refused must not block.
type Observer interface {
	Refused(ctx context.Context, call *tool.Call, spec *tool.Spec, res *tool.Result)
}

type funcExt struct {
	name     string
	priority int
	wrap     func(Handler) Handler
}

func (f *funcExt) Name() string              { return f.name }
func (f *funcExt) Priority() int             { return f.priority }
func (f *funcExt) Wrap(next Handler) Handler { return f.wrap(next) }

// Func builds an Extension from a wrap function, the way http.HandlerFunc
// builds a Handler. It has only a name, a priority and wrap: given another
// extension's Wrap, it hides that extension's other methods from the
// executor (an Authorizer's, an Observer's, its checks; see Authorizer).
// To run an extension at another priority, use WithPriority; to wrap one,
// write a type with an Unwrap() Extension method.
func Func(name string, priority int, wrap func(next Handler) Handler) Extension {
	return &funcExt{name: name, priority: priority, wrap: wrap}
}

// WithPriority returns ext re-placed at priority p. The result has ext's
// name and Wrap, and Unwrap gives ext itself: the executor reaches ext's
// other methods (Checker, ChainChecker, Observer, Authorizer, ...) with
// As, so re-placing an extension never drops its checks. A nil ext, or a
// nil pointer (a constructor's error ignored), gives nil, which
// executor.New reports.
func WithPriority(ext Extension, p int) Extension {
	if ext == nil || IsNilPointer(ext) {
		return nil
	}
	return &placed{Extension: ext, priority: p}
}

// IsNilPointer reports whether x holds a nil pointer (a nil *policy.Policy
// from a failed policy.Load, say), whose methods would panic: a
// constructor's error was ignored. WithPriority gives nil for such an
// extension; executor.New reports it, and such a history or job store.
func IsNilPointer(x any) bool {
	v := reflect.ValueOf(x)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// CallPrincipal is the principal a call naming p acts for: p, or, when p
// names no one (no ID), the principal ctx carries (tool.WithPrincipal), if
// any. The executor, Chain and auth fill a call's principal with it, and
// the MCP server judges a request's so.
func CallPrincipal(ctx context.Context, p tool.Principal) tool.Principal {
	if cp, ok := tool.PrincipalFrom(ctx); ok && p.ID == "" {
		return cp
	}
	return p
}

// placed is an extension re-placed by WithPriority.
type placed struct {
	Extension
	priority int
}

func (x *placed) Priority() int { return x.priority }

// Unwrap returns the extension that was re-placed.
func (x *placed) Unwrap() Extension { return x.Extension }

// As returns ext as a T (an interface such as Checker, or an extension's
// own type), looking through the extensions it wraps, the way errors.As
// looks through wrapped errors: an extension that wraps another (as
// WithPriority's result does) has a method Unwrap() Extension. Code that
// looks for a method among an executor's extensions uses As, and an
// extension that finds itself among them (in CheckChain) compares what As
// returns; the wrapper's Priority is the one the chain runs it at. It
// gives up after 16 wrappers, as tool.As does.
func As[T any](ext Extension) (T, bool) {
	for range 16 { // wrappers are one or two deep; a cycle ends here
		if t, ok := ext.(T); ok {
			return t, true
		}
		u, ok := ext.(interface{ Unwrap() Extension })
		if !ok {
			break
		}
		ext = u.Unwrap()
	}
	var zero T
	return zero, false
}

// Hooks is an Extension for code that only looks before and after a call.
type Hooks struct {
	// ExtName and Prio are the extension's name and priority.
	ExtName string
	Prio    int
	// Before runs before the rest of the chain. A non-nil result
	// short-circuits: the rest of the chain and the backend do not run.
	Before func(ctx context.Context, req *Request) *tool.Result
	// After sees every result, including short-circuited ones from
	// extensions further in. It may modify the result in place.
	After func(ctx context.Context, req *Request, res *tool.Result)
}

// Name returns ExtName, or "hooks".
func (h Hooks) Name() string {
	if h.ExtName == "" {
		return "hooks"
	}
	return h.ExtName
}

// Priority returns Prio.
func (h Hooks) Priority() int { return h.Prio }

// Wrap implements Extension.
func (h Hooks) Wrap(next Handler) Handler {
	return func(ctx context.Context, req *Request) *tool.Result {
		var res *tool.Result
		if h.Before != nil {
			res = h.Before(ctx, req)
		}
		if res == nil {
			res = next(ctx, req)
		}
		if h.After != nil {
			h.After(ctx, req, res)
		}
		return res
	}
}

// Sort returns the extensions ordered by priority, outermost first; equal
// priorities keep the order given. Nil entries are dropped.
func Sort(exts []Extension) []Extension {
	out := make([]Extension, 0, len(exts))
	for _, e := range exts {
		if e != nil {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Priority() < out[j].Priority() })
	return out
}

// Chain builds the handler that runs exts (sorted by Sort) around final.
// Every layer is guarded: a panic in an extension becomes a result with
// tool.CodePanic and the stack in metadata, and a nil result becomes an
// internal error, so the extensions outside it still see a result (the
// chain is never left half-run).
//
// Every layer, and final, runs acting for the principal of the request it
// is handed (tool.ActingFor), as the executor's package doc promises of
// calls inside calls: a call an extension makes with its context acts for
// the outer call's principal, wherever the extension sits (before auth
// too), never for one the caller's context carries (a host's operator
// running a call for a user); one an extension set (req.Call.Principal)
// holds from the next layer in. A request that names no principal takes
// the context's, as the executor's calls do.
func Chain(final Handler, exts ...Extension) Handler {
	h := guard("backend", final)
	sorted := Sort(exts)
	for i := len(sorted) - 1; i >= 0; i-- {
		h = guard(sorted[i].Name(), sorted[i].Wrap(h))
	}
	return func(ctx context.Context, req *Request) *tool.Result {
		req.Call.Principal = CallPrincipal(ctx, req.Call.Principal)
		return h(ctx, req)
	}
}

func guard(name string, h Handler) Handler {
	where := "extension " + strconv.Quote(name)
	return func(ctx context.Context, req *Request) (res *tool.Result) {
		defer func() {
			if p := recover(); p != nil {
				res = PanicResult(&req.Call, where, p, debug.Stack())
			}
		}()
		res = h(tool.ActingFor(ctx, req.Call.Principal), req)
		if res == nil {
			res = tool.Fail(&req.Call, tool.CodeInternal, fmt.Sprintf("extension %q returned no result", name))
		}
		// Before the extensions outside this one (logging, audit) read it.
		MaskSecretEchoes(res, &req.Call, req.Spec)
		return res
	}
}

// MaskSecretEchoes masks, in res's error message and cause, the values of
// the call's secret arguments (spec.Secrets) wherever the error quotes
// them ("pin 739164 rejected"), so that every reader of the result (the
// model, logs, events, history, the audit trail) gets the masked text. The
// cause's own chain (errors.Unwrap) is kept for the program. The executor
// calls it on a backend's result and on each extension's, as the chain
// unwinds; an extension that hands an error to a reader of its own (an
// error handler) can call it first.
func MaskSecretEchoes(res *tool.Result, call *tool.Call, spec *tool.Spec) {
	if res == nil || res.Error == nil || spec == nil || len(spec.Secrets) == 0 {
		return
	}
	values := redact.SecretValues(call.Args, spec.Secrets)
	if len(values) == 0 {
		return
	}
	te := res.Error
	te.Message = redact.Scrub(te.Message, values)
	if te.Err != nil {
		if text := redact.Scrub(te.Err.Error(), values); text != te.Err.Error() {
			te.Err = errtext.New(text, te.Err)
		}
	}
}

// PanicResult builds the result of a recovered panic in where.
func PanicResult(call *tool.Call, where string, p any, stack []byte) *tool.Result {
	res := tool.Fail(call, tool.CodePanic, fmt.Sprintf("%s panicked: %v", where, p))
	res.SetMeta("panic", fmt.Sprint(p))
	res.SetMeta("stack", string(stack))
	return res
}

// Checker is an extension that can tell, before any call, that its own
// configuration is wrong (a malformed rule, a rate that allows nothing).
// executor.New runs Check and refuses to build an executor when it fails.
type Checker interface {
	Check() error
}

// RegistryChecker is an extension whose configuration names tools (rules
// for tools, limits per tool): CheckRegistry reports names the registry
// does not have, with a suggestion, so that a typo does not leave the real
// tool ungoverned. executor.New runs it on the executor's registry.
type RegistryChecker interface {
	CheckRegistry(reg ToolLister) error
}

// ToolLister is what a RegistryChecker needs of a registry: the names of
// its tools and the closest names to one that is missing.
type ToolLister interface {
	Names() []string
	Suggest(name string, n int) []string
}

// ChainChecker is an extension that needs others beside it (an approval
// extension needs its guard): CheckChain receives every extension of the
// executor and reports what is missing. executor.New runs it.
type ChainChecker interface {
	CheckChain(exts []Extension) error
}

// Authorizer is an extension that can say, without running a call,
// whether a principal may make it (extension/auth's Auth). The executor
// asks it so that its errors (a tool not found, arguments that break the
// schema) tell a principal only of the tools it may call; the MCP server
// (executor/mcpserver) lists a principal only those. Find it among an
// executor's extensions with As.
//
// The executor asks it several times about one call: at admission (a tool
// that declares resources runs its Resources only for a principal it
// lets through), in the chain (auth's Wrap), again to answer a refusal as
// a name no tool has, and once for each tool it considers naming in that
// answer. Authorize must therefore be cheap and a pure function of p and
// spec, as auth's is (immutable after New): an authorizer whose answer
// changes between two questions (a remote service asked each time, a
// budget) has the chain refuse a call the executor then answers
// unauthorized, naming the tool to a principal it hides it from. Decide
// once and keep the decision, or ask a service before the executor runs.
//
// The executor finds an authorizer through As only: one whose Wrap is
// handed to Func, or held by a wrapper of your own without an
// Unwrap() Extension method, still refuses calls in the chain, but the
// executor does not see it. Its refusals are then answered unauthorized,
// naming the rule and the role (the tool exists), the MCP server lists
// every tool to every principal, and its checks (Check, CheckChain,
// CheckRegistry) do not run. Re-place an authorizer with WithPriority,
// and give a wrapper an Unwrap method.
type Authorizer interface {
	// Authorize returns a nil error when p may call the tool spec
	// describes; on refusal, the deciding rule's name and a *tool.Error.
	Authorize(p tool.Principal, spec *tool.Spec) (rule string, err error)
}

// MetaAuthRule is the result metadata key that names the rule by which
// an Authorizer refused a call (extension/auth's MetaRule).
const MetaAuthRule = "auth.rule"

// Refusal is the result of a call an Authorizer refused: its error, and
// the deciding rule, when there is one, under MetaAuthRule. Auth answers
// the calls it refuses with it, and the executor the calls it refuses as
// auth would before the chain, so that logs and the audit trail read both
// alike.
func Refusal(call *tool.Call, rule string, err error) *tool.Result {
	res := tool.Failure(call, err)
	if rule != "" {
		res.SetMeta(MetaAuthRule, rule)
	}
	return res
}

// ToolChecker is an extension with rules that a tool can contradict (a
// policy naming arguments the tool does not have). executor.New runs
// CheckTool on every registered tool, and has the registry run it on every
// tool registered later, which Register then refuses on error.
type ToolChecker interface {
	CheckTool(spec tool.Spec) error
}
