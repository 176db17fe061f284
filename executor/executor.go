// Package executor runs tool calls: it looks the tool up, validates the
// arguments against the compiled schema, runs the extension chain (auth,
// policy, rate limits, approval, logging, ...), runs the backend under the
// call's deadline, validates the output, and returns a *tool.Result, never
// nil (Execute's error is the result's *tool.Error: use either).
//
// Beyond one call at a time:
//
//   - ExecuteBatch runs the parallel tool calls of one model turn
//     concurrently and returns their results in call order.
//   - Calls whose tools declare resources (tool.ResourceDeclarer) are
//     serialised per resource in submission order: readers share, writers
//     exclude (WithConflictPolicy).
//   - Concurrency limits: global, per agent and per tool (WithMaxConcurrency,
//     WithAgentConcurrency, WithToolConcurrency), waiting in FIFO order or
//     refusing (WithLimitPolicy, WithMaxQueue).
//   - Submit, Status, Wait, Cancel and Jobs run calls as async jobs.
//   - Subscribe streams tool.Events (submitted, queued, started, output,
//     completed, ...) without ever blocking a call.
//   - History keeps a summary of the last calls (WithHistory).
//
// Without an approval extension (one named extension.NameApproval, as
// approvalgate's), nobody can be asked: a call that needs a person's
// approval is refused with tool.CodeApprovalDenied instead of run unasked.
// That is a call of a tool with Spec.RequiresApproval, one whose command
// its tool judges dangerous (approval.Assessor: rm -rf build; blocked ones
// the shell tools refuse themselves), and one an extension demands
// approval for (approval.RequiredKey: a governance mode listed in
// requires_approval_in_modes). Install approvalgate with
// approval.ModeAllowAll to run such calls unasked.
//
// With an extension.Authorizer (auth), an unknown tool's error suggests
// only tools the call's principal may call, and a call of a tool it may
// not call, valid arguments or not, is answered as a name no tool has
// (tool.CodeNotFound, the same message), so that guessing names tells a
// principal nothing of the tools hidden from it: whatever the chain
// answered (auth's refusal, or an extension outside auth: a rate limiter
// re-placed there), also when the caller's context ended first, and
// without asking the tool for the call's resources. The extensions around
// auth and the observers (logs, the audit trail) see auth's refusal and
// its rule (extension.MetaAuthRule); the answer keeps them for the
// program, as the error's cause (errors.Is(err, tool.ErrUnauthorized))
// and in its metadata, which no model is sent.
//
// Where a call waits: lock tickets are taken at submission, so calls on one
// resource run in submission order; locks are granted and slots taken just
// before the backend runs, after the chain (auth, policy, approval) lets
// the call through. A call waiting for a person holds no slot and no place
// in the lock queues (extension.LockQueue): the calls behind it go ahead,
// and once decided it queues again behind them; a call of an ExecuteBatch
// of several keeps its place. Locks are held until the call ends (across
// retries); slots only while a backend runs.
//
// Calls inside calls: a backend or an extension may run other calls with
// the context it was given (a sub-agent). That context carries the
// principal the outer call acts for (extension.Chain: in every extension,
// before auth too), never one the caller's context carries, so an inner
// call that names none acts for it. Each inner call has its own locks,
// limits and events, never the outer call's locks; its output also
// reaches the outer call's subscribers as the outer call's output. An
// inner call that needs a resource the outer call holds waits for it until
// the inner call's deadline (or refuses at once under
// WithConflictPolicy(Refuse)).
package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/keylock"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Executor runs calls against the tools of a registry. It is safe for
// concurrent use.
type Executor struct {
	reg         *registry.Registry
	exts        []extension.Extension
	detach      bool
	approves    bool // an extension named "approval" is installed (reads Spec.RequiresApproval)
	chain       extension.Handler
	timeout     time.Duration
	maxArgBytes int
	maxOutBytes int

	batchLimit int
	maxWait    time.Duration
	conflict   Overflow
	locks      keylock.Table
	limits     limits
	histSize   int
	hist       HistoryStore // WithHistoryStore, else a ring; nil when history is disabled
	hub        hub
	jobs       jobTable // the in-memory job store
	jobStore   JobStore // WithJobStore, else &jobs
}

// New returns an executor for the tools of reg, or an error when the
// configuration is one it can prove wrong: no registry, a nil extension
// (often an ignored constructor error), two extensions with one name, an
// extension whose Check fails (extension.Checker: a malformed rule), or
// rules that name tools reg does not have (extension.RegistryChecker).
// Register the tools before New; the executor sees tools added later.
func New(reg *registry.Registry, opts ...Option) (*Executor, error) {
	if reg == nil {
		return nil, errors.New("executor: the registry is nil: pass registry.New() with your tools registered")
	}
	e := &Executor{
		reg: reg, timeout: DefaultTimeout, maxArgBytes: DefaultMaxArgBytes, maxOutBytes: DefaultMaxOutputBytes,
		batchLimit: DefaultBatchConcurrency, histSize: DefaultHistory,
	}
	e.jobs.byID, e.jobs.ttl, e.jobs.max = map[JobID]*job{}, DefaultJobRetention, DefaultJobsKept
	e.limits.tools, e.limits.live = map[string]int{}, map[scope]*limiter{}
	for _, o := range opts {
		if o != nil {
			o(e)
		}
	}
	if err := e.check(); err != nil {
		return nil, err
	}
	if extension.IsNilPointer(e.hist) {
		return nil, errors.New("executor: the history store given to WithHistoryStore is a nil pointer: check the error of the constructor that made it, or pass nil for the in-memory ring")
	}
	if e.hist == nil && e.histSize > 0 {
		e.hist = &ring{ring: make([]Record, e.histSize)}
	}
	e.exts = extension.Sort(e.exts)
	e.chain = extension.Chain(e.runBackend, e.exts...)
	// The job store gets its runner once the executor can run calls.
	if e.jobStore == nil {
		e.jobStore = &e.jobs
	}
	if extension.IsNilPointer(e.jobStore) {
		return nil, errors.New("executor: the job store given to WithJobStore is a nil pointer: check the error of the constructor that made it, or pass nil for the in-memory store")
	}
	if err := e.jobStore.Attach(JobRunner{e}); err != nil {
		return nil, fmt.Errorf("executor: the job store given to WithJobStore: %w", err)
	}
	// Last, so that a New that fails leaves the registry as it was.
	for _, x := range e.exts {
		if c, ok := extension.As[extension.ToolChecker](x); ok {
			name := x.Name()
			e.reg.OnRegister(func(spec tool.Spec) error {
				if err := c.CheckTool(spec); err != nil {
					return fmt.Errorf("extension %q: %w", name, err)
				}
				return nil
			})
		}
	}
	return e, nil
}

// MustNew is New that panics on error, for program start-up and tests, as
// regexp.MustCompile.
func MustNew(reg *registry.Registry, opts ...Option) *Executor {
	e, err := New(reg, opts...)
	if err != nil {
		panic(err)
	}
	return e
}

// check runs New's checks and returns every problem at once.
func (e *Executor) check() error {
	var errs []error
	seen := map[string]int{}
	for i, x := range e.exts {
		if x == nil || extension.IsNilPointer(x) {
			errs = append(errs, fmt.Errorf("executor: extension #%d passed to WithExtensions is nil: check the error of the constructor that made it", i))
			continue
		}
		name := x.Name()
		if j, dup := seen[name]; dup {
			errs = append(errs, fmt.Errorf("executor: extensions #%d and #%d are both named %q: each extension runs once; remove one (or give one its own name)", j, i, name))
		}
		seen[name] = i
		fail := func(err error) {
			if err != nil {
				errs = append(errs, fmt.Errorf("executor: extension %q: %w", name, err))
			}
		}
		// Through a re-placement (extension.WithPriority) too.
		if c, ok := extension.As[extension.Checker](x); ok {
			fail(c.Check())
		}
		if c, ok := extension.As[extension.ChainChecker](x); ok {
			fail(c.CheckChain(e.exts))
		}
		if c, ok := extension.As[extension.RegistryChecker](x); ok {
			fail(c.CheckRegistry(e.reg))
		}
		if c, ok := extension.As[extension.ToolChecker](x); ok {
			for _, spec := range e.reg.List(registry.Filter{}) {
				if err := c.CheckTool(spec); err != nil {
					fail(fmt.Errorf("tool %q: %w", spec.Name, err))
				}
			}
		}
	}
	_, e.approves = seen[extension.NameApproval]
	return errors.Join(errs...)
}

// Registry returns the executor's registry.
func (e *Executor) Registry() *registry.Registry { return e.reg }

// Extensions returns the extensions in chain order, outermost first.
func (e *Executor) Extensions() []extension.Extension {
	return append([]extension.Extension(nil), e.exts...)
}

// Execute runs one call through the pipeline. The result is never nil; the
// error is the result's *tool.Error, nil on success. A nil ctx is the
// caller's bug, as in the standard library.
func (e *Executor) Execute(ctx context.Context, call tool.Call) (*tool.Result, error) {
	call.Principal = extension.CallPrincipal(ctx, call.Principal)
	res := e.run(ctx, e.admit(call, "", nil, nil, time.Now()))
	return res, res.Err()
}

// run is the life of one admitted call: the pipeline, then history, final
// event, lock release and job completion. A panic that escapes (a
// HistoryStore's) or a backend's runtime.Goexit still ends the call: in a
// job's goroutine it would crash the process or leave its waiters waiting.
// A call whose pipeline did not return is in the history too, unless the
// history store itself is what broke.
func (e *Executor) run(ctx context.Context, cs *callState) (res *tool.Result) {
	recorded, finished := false, false
	defer func() {
		if !finished {
			res = escaped(cs, recover())
			stamp(cs, res)
			if !recorded {
				func() {
					defer func() { _ = recover() }() // a store that panics now loses this record only
					e.addHistory(ctx, cs, res)
				}()
			}
			cs.finish(res)
		}
		cs.end()
	}()
	res = cs.refused
	if res == nil {
		res = e.execute(cs.bind(ctx), cs)
	}
	stamp(cs, res)
	recorded = true
	e.addHistory(ctx, cs, res)
	finished = true
	cs.finish(res)
	return res
}

// stamp gives res its call, start and total time, and settles its status.
func stamp(cs *callState, res *tool.Result) {
	res.CallID, res.Tool, res.StartedAt = cs.call.ID, cs.call.Name, cs.start
	res.Timings.Total = time.Since(cs.start)
	settle(res)
}

// escaped is the result of a call whose run did not return: p is the panic
// that escaped, nil when the backend called runtime.Goexit (t.FailNow).
func escaped(cs *callState, p any) *tool.Result {
	call := &tool.Call{ID: cs.call.ID, Name: cs.call.Name}
	if p == nil {
		return tool.Failure(call, goexited(call.Name))
	}
	return extension.PanicResult(call, fmt.Sprintf("executor running call %q", clipField(call.ID)), p, debug.Stack())
}

func goexited(name string) *tool.Error {
	return tool.Errorf(tool.CodeInternal, "tool %q ended its goroutine (runtime.Goexit) without returning", name)
}

// execute is the pipeline: the checks of admission, then the chain.
func (e *Executor) execute(ctx context.Context, cs *callState) *tool.Result {
	req := &cs.req
	call, entry := &req.Call, cs.entry
	if entry == nil {
		return e.refused(ctx, call, nil, tool.Fail(call, tool.CodeNotFound, e.notFound(call.Name, call.Principal)))
	}
	if ctx.Err() != nil || cs.invalid != nil {
		// That the context ended before the tool started, and the schema's
		// names, are told only to a principal that may call the tool: to
		// another, a name no tool has is answered not_found whatever the
		// context.
		if rule, err := e.Authorize(call.Principal, &entry.Spec); err != nil {
			return e.hide(call, e.refused(ctx, call, &entry.Spec, extension.Refusal(call, rule, err)))
		}
	}
	if err := ctx.Err(); err != nil {
		return e.refused(ctx, call, &entry.Spec, notStarted(call, err))
	}
	if cs.invalid != nil { // validated at admission (admit)
		return e.refused(ctx, call, &entry.Spec, tool.Failure(call, cs.invalid))
	}
	req.Spec, req.Tool, req.Attempt, req.Validated, req.Received = &entry.Spec, entry.Tool, 1, call.Args, cs.start
	res := e.chain(ctx, req)
	// An extension's own answer (a cache hit another executor filled) is capped too.
	capOutput(res, e.maxOutBytes, entry.Spec.Name)
	if res.Error != nil {
		// Auth's refusal, or the answer of an extension outside auth (a
		// rate limiter placed before it): either tells the principal the
		// tool exists. The chain's extensions saw it; the principal (as
		// the chain left it) is told what a name no tool has is told,
		// uncut, as that answer is.
		if _, err := e.Authorize(call.Principal, &entry.Spec); err != nil {
			res = e.hide(call, res)
		}
	}
	res.Timings.Validate = cs.validate
	return res
}

// notStarted is the failure of a call whose caller's context ended (err)
// before its backend started: only the caller's deadline can have passed.
func notStarted(call *tool.Call, err error) *tool.Result {
	te := tool.AsError(err) // keeps err: errors.Is(res.Err(), context.DeadlineExceeded)
	if errors.Is(err, context.DeadlineExceeded) {
		te.Message = fmt.Sprintf("the caller's deadline passed before tool %q started: give the call more time", call.Name)
	}
	return tool.Failure(call, te)
}

// refused tells the observers (extension.Observer) of a call that never
// reached the chain, so that logs and the audit trail count every call.
func (e *Executor) refused(ctx context.Context, call *tool.Call, spec *tool.Spec, res *tool.Result) *tool.Result {
	for _, x := range e.exts {
		if o, ok := extension.As[extension.Observer](x); ok {
			func() {
				defer func() { _ = recover() }() // an observer's panic must not lose the result
				o.Refused(ctx, call, spec, res)
			}()
		}
	}
	return res
}

// ReportRefused tells the executor's observers (extension.Observer:
// logging, metrics, the audit trail) of a call refused before it reached
// the executor, as it tells them of its own refusals (an agent loop's call
// to an undeclared tool). An observer's panic is recovered.
func (e *Executor) ReportRefused(ctx context.Context, call *tool.Call, res *tool.Result) {
	e.refused(ctx, call, nil, res)
}

// maxNameBytes is the longest name a tool can have (tool.CheckName).
const maxNameBytes = 64

// notFound says that no tool is named name, and which tools p may have
// meant: only those p may call (authorize), so that a principal does not
// learn from the error of the tools the host hides from it.
func (e *Executor) notFound(name string, p tool.Principal) string {
	if name == "" {
		return "the call names no tool: set the tool name"
	}
	if len(name) > maxNameBytes {
		// The model's text, of any length: quoted whole it would fill the
		// result and the logs, and cost its length per edit distance.
		return fmt.Sprintf("no tool named %q… (%d bytes; a tool's name is at most %d)", textcut.Head(name, maxNameBytes), len(name), maxNameBytes)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "no tool named %q", name)
	all := e.reg.Names()
	if s := e.callable(p, e.reg.Suggest(name, maxNameChecks), 3); len(s) > 0 {
		for i, n := range s {
			s[i] = strconv.Quote(n)
		}
		fmt.Fprintf(&b, ": did you mean %s?", strings.Join(s, " or "))
	} else if len(all) <= maxNameChecks {
		if names := e.callable(p, all, 21); len(names) > 0 && len(names) <= 20 {
			fmt.Fprintf(&b, ": available tools are %s", strings.Join(names, ", "))
		}
	}
	return b.String()
}

// maxNameChecks bounds the tools whose authorization one not_found answer
// asks for: the closest names, or every name in a registry of at most
// this many. A name guessed against a registry of thousands cost a
// question of each.
const maxNameChecks = 64

// callable returns the first n of names that p may call.
func (e *Executor) callable(p tool.Principal, names []string, n int) []string {
	out := names[:0]
	for _, name := range names {
		if len(out) == n {
			break
		}
		if entry, ok := e.reg.Lookup(name); ok {
			if _, err := e.Authorize(p, &entry.Spec); err == nil {
				out = append(out, name)
			}
		}
	}
	return out
}

// Authorize asks the executor's authorizers (extension.Authorizer: auth,
// re-placed by extension.WithPriority or not) whether p may call the tool
// spec describes, without running anything: a nil error when every one
// lets it, else the first refusal and its deciding rule. The executor's
// errors name only the tools p may call, and the MCP server
// (executor/mcpserver) lists p only those.
func (e *Executor) Authorize(p tool.Principal, spec *tool.Spec) (rule string, err error) {
	for _, x := range e.exts {
		if a, ok := extension.As[extension.Authorizer](x); ok {
			if rule, err := a.Authorize(p, spec); err != nil {
				return rule, err
			}
		}
	}
	return "", nil
}

// hide answers a call of a tool its principal may not call as a name no
// tool has is answered (notFound), so that a principal guessing names
// cannot tell the tools hidden from it from none. refused is the
// authorizer's refusal, which the chain's extensions or the observers
// (logs, the audit trail) saw: it stays the program's, as the error's
// cause and the metadata, which no model is sent.
func (e *Executor) hide(call *tool.Call, refused *tool.Result) *tool.Result {
	res := tool.Fail(call, tool.CodeNotFound, e.notFound(call.Name, call.Principal))
	res.Error.Err, res.Metadata = refused.Error, refused.Metadata
	return res
}

// validate checks size and shape, decodes, drops strict-mode nulls and
// validates against the compiled input schema. It returns the arguments to
// run with (re-encoded only when nulls were dropped).
func (e *Executor) validate(entry *registry.Entry, args json.RawMessage) (json.RawMessage, *tool.Error) {
	if len(args) > e.maxArgBytes {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments are %d bytes, over the %d-byte limit: send less data, or pass a reference (a path, a URL) instead of the content", len(args), e.maxArgBytes)
	}
	args, err := entry.CheckArgs(args)
	if err != nil {
		return nil, &tool.Error{Code: tool.CodeInvalidArguments, Message: err.Error(), Err: err}
	}
	return args, nil
}

type outcome struct {
	res *tool.Result
	err error
}

// runBackend is the innermost handler: it re-validates rewritten arguments,
// runs the backend under the deadline, and validates the output.
func (e *Executor) runBackend(ctx context.Context, req *extension.Request) *tool.Result {
	call, spec := &req.Call, req.Spec
	cs, _ := ctx.Value(stateKey{}).(*callState)
	if cs == nil { // a chain run outside Execute (extension tests): no locks, no events
		cs = &callState{e: e, call: identOf(call), lockless: true}
	}
	var entry *registry.Entry // looked up again for rewritten arguments
	rewritten := !bytes.Equal(call.Args, req.Validated)
	if rewritten {
		var ok bool
		if entry, ok = e.reg.Lookup(spec.Name); !ok {
			return tool.Fail(call, tool.CodeNotFound, e.notFound(spec.Name, call.Principal))
		}
		args, ferr := e.validate(entry, call.Args)
		if ferr != nil {
			ferr.Message = "arguments rewritten by an extension are invalid: " + ferr.Message
			return tool.Failure(call, ferr)
		}
		call.Args, req.Validated = args, args
	}
	at, ferr := cs.hold(req, rewritten)
	if ferr != nil {
		return tool.Failure(call, ferr)
	}
	var still <-chan outcome // the run, when it outlives the call
	defer func() {
		if still == nil {
			cs.unhold(at)
		}
	}()
	// Judged on the arguments that run: rewritten, validated, defaults filled.
	if !e.approves {
		if res := approval.Unasked(call, req.Tool, spec); res != nil {
			return res
		}
		if demand, ok := req.Get(approval.RequiredKey); ok {
			return approval.UnaskedDemand(call, demand)
		}
	}
	if at != nil && at.tk != nil {
		if ferr := e.awaitLocks(ctx, at.tk, cs); ferr != nil {
			return tool.Failure(call, ferr)
		}
	}
	held, ferr := e.limits.acquire(ctx, cs)
	if ferr != nil {
		return tool.Failure(call, ferr)
	}
	defer func() {
		if still == nil {
			e.limits.release(held)
			return
		}
		// Its slots and locks are its run's until it returns: the next
		// call would run beside it, past every limit, or write beside it.
		go func() {
			<-still
			e.limits.release(held)
			cs.unhold(at)
		}()
	}()
	if err := ctx.Err(); err != nil { // ended in the chain (an approval wait, a mode change): never start
		return notStarted(call, err)
	}
	cs.emit(tool.Event{Kind: tool.EventStarted, Attempt: req.Attempt})
	// The call's timeout, else the spec's, else the executor's.
	timeout := e.timeout
	setPositive(&timeout, spec.Timeout)
	setPositive(&timeout, call.Timeout)
	began := time.Now()
	deadline := began.Add(timeout)
	// Whose deadline is it? The caller's, when it comes first.
	callerDeadline, callerFirst := ctx.Deadline()
	callerFirst = callerFirst && callerDeadline.Before(deadline)
	callerPassed := callerDeadline.Sub(began).Round(time.Millisecond) // when, into the run (not when the call looked)
	// ctx acts for call.Principal: extension.Chain runs final so.
	bctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if emit := tool.EmitterFrom(bctx); emit != nil {
		// A backend (or a call it makes) emits output only: approval and
		// completion are the executor's and its extensions' to tell.
		bctx = tool.WithEmitter(bctx, func(ev tool.Event) {
			if ev.Kind == tool.EventOutput {
				emit(ev)
			}
		})
	}
	o, still := e.runTool(bctx, req.Tool, *call)
	abandoned := still != nil
	ended := time.Now()
	elapsed := ended.Sub(began)
	// By the clock too: a context closes its Done before its children
	// (bctx) hold its error, so a backend woken by the caller's deadline
	// can return while bctx.Err() is still nil.
	end, _ := bctx.Deadline()
	deadlineErr := bctx.Err() == context.DeadlineExceeded || !ended.Before(end)
	cancel()

	res := o.res
	if res == nil {
		res = &tool.Result{}
	}
	// Only the approval extension, around the backend, records a decision.
	delete(res.Metadata, approval.MetaKey)
	delete(res.Metadata, approval.MetaModifiedKey)
	switch {
	case o.err != nil:
		te := tool.AsError(o.err)
		if deadlineErr && (te.Code == tool.CodeCancelled || te.Code == tool.CodeTimeout || te.Code == tool.CodeInternal) {
			switch {
			case callerFirst:
				te = tool.Errorf(tool.CodeTimeout, "the caller's deadline passed %v into the run, before tool %q finished (its own deadline is %v): give the call more time", callerPassed, spec.Name, timeout)
			case abandoned:
				te = tool.Errorf(tool.CodeTimeout, "tool %q ran past its %v deadline and ignores its context: it is still running in the background, and its result will be discarded; make it honour ctx, or raise the timeout", spec.Name, timeout)
			default:
				te = tool.Errorf(tool.CodeTimeout, "tool %q ran past its %v deadline and was stopped: ask for less work, or raise the timeout", spec.Name, timeout)
			}
		}
		res.Error = te
	case o.res != nil && res.Error == nil && deadlineErr: // returned late: kept, but timed out
		if callerFirst {
			res.Error = tool.Errorf(tool.CodeTimeout, "the caller's deadline passed %v into the run; tool %q ignored it and returned after %v: its result is kept with the call, which counts as timed out; give the call more time", callerPassed, spec.Name, elapsed.Round(time.Millisecond))
		} else {
			res.Error = tool.Errorf(tool.CodeTimeout, "tool %q ignored its %v deadline and returned after %v: its result is kept with the call, which counts as timed out; make it honour ctx, or raise the timeout", spec.Name, timeout, elapsed.Round(time.Millisecond))
		}
		res.SetMeta("late", true)
	}
	res.CallID, res.Tool = call.ID, call.Name
	res.Timings.Backend = elapsed
	if abandoned {
		res.SetMeta(tool.MetaStillRunning, true)
	}
	res.Attempts = max(res.Attempts, req.Attempt)
	if te := res.Error; te != nil && te.Code == tool.CodeToolError && te.Err != nil {
		// For the program, in metadata, which no model is sent.
		res.SetMeta(tool.MetaErrorType, causeType(te.Err))
	}
	if te := res.Error; te != nil && !te.Code.Valid() {
		// A code of the tool's own making: programs, metric labels and
		// models switch on the closed set. The tool's error value, maybe
		// shared, is not changed; it stays the cause.
		res.SetMeta(tool.MetaErrorCode, strings.ToValidUTF8(string(te.Code), "\uFFFD"))
		own := *te
		own.Code, own.Err = tool.CodeToolError, te
		res.Error = &own
	}
	extension.MaskSecretEchoes(res, call, spec)
	capOutput(res, e.maxOutBytes, spec.Name)
	if res.Error == nil && len(res.Output) > 0 && len(spec.OutputSchema) == 0 && !json.Valid(res.Output) {
		// A model, an MCP client or a provider's API would choke on non-JSON.
		res.Error = tool.Errorf(tool.CodeInvalidOutput, "tool %q returned structured output that is not JSON: return a JSON value, or put text in a text content block", spec.Name)
	}
	if res.Error == nil && len(res.Output) > 0 && len(spec.OutputSchema) > 0 {
		if entry == nil {
			entry, _ = e.reg.Lookup(spec.Name)
		}
		if entry != nil {
			if err := entry.CheckOutput(res.Output); err != nil {
				res.Error = tool.Errorf(tool.CodeInvalidOutput, "tool %q returned output that breaks its output schema: %v", spec.Name, err)
			}
		}
	}
	settle(res)
	return res
}

// causeType is the Go type of err's cause, under fmt.Errorf's wrapping
// ("*fs.PathError", not "*fmt.wrapError").
func causeType(err error) string {
	for {
		t := fmt.Sprintf("%T", err)
		next := errors.Unwrap(err)
		if next == nil || (t != "*fmt.wrapError" && t != "*fmt.wrapErrors") {
			return t
		}
		err = next
	}
}

// settle sets a result's status by the one rule, tool.Result.SettledStatus,
// which extensions that report a result earlier use too.
func settle(res *tool.Result) { res.Status = res.SettledStatus() }

// runInline runs the backend in the caller's goroutine (the default: see
// WithDetach); a panic becomes the call's result.
func runInline(ctx context.Context, backend tool.Tool, c tool.Call) (o outcome) {
	defer func() {
		if p := recover(); p != nil {
			o = outcome{res: extension.PanicResult(&c, fmt.Sprintf("tool %q", c.Name), p, debug.Stack())}
		}
	}()
	o.res, o.err = backend.Run(ctx, c)
	return o
}

// runTool runs the backend in the caller's goroutine or, with WithDetach,
// in its own. There, past the deadline, it waits abandonGrace for the
// backend to stop, so that one honouring its context is not reported as
// still running and the next writer never overlaps one being killed.
// still, when it runs on, receives its outcome when it returns.
func (e *Executor) runTool(ctx context.Context, backend tool.Tool, c tool.Call) (o outcome, still <-chan outcome) {
	if !e.detach {
		return runInline(ctx, backend, c), nil
	}
	done := make(chan outcome, 1)
	go func(c tool.Call) { // c passed, not captured: the inline path keeps it on the stack
		o := outcome{err: goexited(c.Name)} // a Goexit still sends: the slots come back
		defer func() { done <- o }()
		o = runInline(ctx, backend, c)
	}(c)
	select {
	case o = <-done:
	case <-ctx.Done():
		select {
		case o = <-done:
		case <-time.After(abandonGrace):
			o.err, still = ctx.Err(), done
		}
	}
	return o, still
}

// capOutput holds res to limit bytes, as WithMaxOutputBytes says: text
// blocks share what the structured output leaves.
func capOutput(res *tool.Result, limit int, name string) {
	if te := res.Error; te != nil && len(te.Message) > limit {
		cut := *te // a tool may return an error value it keeps
		cut.Message = textcut.HeadTail(te.Message, limit)
		res.Error = &cut
		res.SetMeta(tool.MetaTruncated, true)
	}
	if n := len(res.Output); n > limit {
		res.Output, res.Error = nil, tool.Errorf(tool.CodeInvalidOutput, "tool %q returned %d bytes of structured output, over the %d-byte cap: return less, or a reference (a path, a URL) to the data", name, n, limit)
		return
	}
	budget := limit - len(res.Output)
	cut := false
	for i := range res.Content {
		c := &res.Content[i]
		if len(c.Text) > budget {
			c.Text = textcut.HeadTail(c.Text, budget)
			cut = true
		}
		budget = max(0, budget-len(c.Text))
		if len(c.Data) > budget {
			c.Text = fmt.Sprintf("[%d bytes of %s cut: over the %d-byte output cap]", len(c.Data), c.MIMEType, limit)
			c.Type, c.Data = tool.ContentText, nil
			cut = true
		}
		budget = max(0, budget-len(c.Data))
	}
	if cut {
		res.SetMeta(tool.MetaTruncated, true)
	}
}
