// Package approvalgate is the executor's approval extension: it asks an
// approval.Approver when the tool's spec, the operating mode, the approval
// policy or the assessed risk of the call says so, and binds the decision to
// the exact call that runs.
//
// The package lives at extension/approvalgate; it is named approvalgate so that
// it can be imported next to package approval without an alias.
//
// # What it does, per call
//
//  1. Assesses the call's danger: the tool's own verdict when it implements
//     approval.Assessor (a shell tool classifies its command line),
//     otherwise one derived from the spec's risk.
//  2. Reads the demand of the policy extension: a string reason under
//     approval.RequiredKey in the request's values.
//  3. Asks the approval.Policy (default: auto) whether to allow, ask or
//     refuse (see approval.Policy for the order of rules).
//  4. To ask, it first looks for a decision remembered for the call's
//     session ("approve this tool for this session") and for whom the call
//     acts (the principal's tenant, id and roles, and the agent: the ones
//     the person was shown; a denial remembered so also refuses the calls
//     the policy would allow unasked; a remembered approval never answers
//     for a tool on the always-ask list, or one whose spec requires
//     approval, nor for a tool registered again under the same name), then
//     asks the Approver, emitting tool.EventApprovalRequested and
//     tool.EventApprovalDecided (with the decision, who made it and its
//     latency). extension/tracing turns the two into a child span
//     "approval" of the call span; this package imports no tracing library.
//  5. A modification is validated against the tool's input schema and
//     judged again by the approval policy (what it refuses, a deny rule or a
//     blocked command, does not run whoever wrote it) and by the judge an
//     extension outside left under approval.JudgeKey (the governance
//     policy's path and size rules); the call runs with the new arguments
//     and its result records it in Metadata[approval.MetaKey] ("approval":
//     decision, decided_by, modified, the hash of the original arguments).
//
// # Fail closed
//
// Everything that is not a clear approval denies the call with
// tool.CodeApprovalDenied and a reason: no approver configured, an approver
// error or panic, a cancelled context, the approval timeout, a zero,
// unknown, abstaining or malformed decision, a modification without
// arguments, with arguments the schema refuses, or with arguments the
// approval policy or the governance policy (approval.JudgeKey) refuses. When the approval set-up
// itself fails (no approver, an approver's error or panic, a malformed
// decision), the model reads only that the call did not run and should not
// be retried now; what broke is the error's cause (tool.Error.Err), which
// the logging extension logs and no model is sent.
//
// # Binding, and the guard
//
// An approval covers the call that was approved: its id, its tool, the
// canonical hash (SHA-256 of the JSON with sorted keys) of its arguments,
// and whom it acts for (the principal's id, tenant and roles, the session,
// the agent).
// Extensions run after the approval extension (priority above 800: the
// cache, retry, user extensions) could rewrite the arguments, or whom the
// call acts for, after the decision, and the approval extension cannot see
// that: its next handler is the whole rest of the chain. So the extension
// comes with a Guard, an extension at PriorityGuard (the innermost place,
// right before the backend), that compares the call with what was approved
// and refuses it when the id, the tool, the argument hash, the principal,
// the session or the agent changed:
//
//	ext := approvalgate.New(approver)
//	ex, err := executor.New(reg, executor.WithExtensions(ext, ext.Guard()))
//
// Installing the extension without its guard is a configuration error that
// fails closed: every call is denied. The model is told the tool cannot run
// and should not be retried; the fix (add ext.Guard(), or opt out
// explicitly with WithoutGuard) is the error's cause (tool.Error.Err), which
// logs show and no model is sent. The pairing is known once the executor
// has built its chain, so the calls are refused, not executor.New.
package approvalgate

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// PriorityGuard is the Guard's priority: after every other extension.
const PriorityGuard = math.MaxInt32

// DefaultTimeout bounds how long the extension waits for an approver.
const DefaultTimeout = 10 * time.Minute

// DefaultSessionMemory is how many session-scoped decisions are remembered.
const DefaultSessionMemory = 1024

// MaxSessionMemory is the most decisions WithSessionMemory may be asked to
// remember; a larger size is a configuration error.
const MaxSessionMemory = 1 << 20

// Extension is the approval extension. Build it with New; install it and
// its Guard in the same executor.
type Extension struct {
	approver approval.Approver
	policy   *approval.Policy
	timeout  time.Duration
	memory   *memory
	noGuard  bool
	armed    atomic.Int64 // guards wrapped but not yet paired with a Wrap of e
	err      error        // a configuration mistake found by New (Check)
}

// Option configures New.
type Option func(*Extension)

// WithPolicy sets the approval policy (default approval.DefaultPolicy(): auto).
// A nil policy (an ignored approval.NewPolicy error, often) is a
// configuration error that executor.New reports (Check).
func WithPolicy(p *approval.Policy) Option {
	return func(e *Extension) {
		if p == nil {
			e.err = errors.New("approvalgate.WithPolicy(nil): the policy is nil (check the error of approval.NewPolicy or PolicyConfig.Policy); the default auto policy would have let safe calls run unasked")
			return
		}
		e.policy = p
	}
}

// WithTimeout bounds how long the extension waits for the approver
// (default DefaultTimeout). Zero or negative means no bound beyond the
// caller's context.
func WithTimeout(d time.Duration) Option { return func(e *Extension) { e.timeout = d } }

// WithSessionMemory sets how many session-scoped decisions are remembered
// (default DefaultSessionMemory; oldest forgotten first). Zero or negative
// turns the memory off: every call is asked about.
//
// The memory never approves a call of a tool on the policy's always-ask
// list (approval.AlwaysAsk), nor of one whose spec requires approval
// (tool.WithApproval): such a tool is asked about on every call, and
// an approval "for this session" of one of its calls covers that call
// only. A denial remembered for the session still refuses its later calls.
//
// n above MaxSessionMemory is a configuration error that executor.New
// reports (Check). The memory takes room as decisions are kept, not at New.
func WithSessionMemory(n int) Option {
	return func(e *Extension) {
		switch {
		case n > MaxSessionMemory:
			e.err = fmt.Errorf("approvalgate.WithSessionMemory(%d): the session memory is bounded to approvalgate.MaxSessionMemory (%d) decisions: give a size from 1 to %d (default %d), or 0 to remember nothing",
				n, MaxSessionMemory, MaxSessionMemory, DefaultSessionMemory)
		case n <= 0:
			e.memory = nil
		default:
			e.memory = newMemory(n)
		}
	}
}

// WithoutGuard opts out of the Guard: approvals are not re-checked right
// before the backend, so an extension further in could change the
// arguments after approval. Use it only when no extension after the
// approval extension rewrites calls.
func WithoutGuard() Option { return func(e *Extension) { e.noGuard = true } }

// New returns the approval extension asking a (which may be nil: then every
// call the policy would ask about is denied).
func New(a approval.Approver, opts ...Option) *Extension {
	e := &Extension{
		approver: a,
		policy:   approval.DefaultPolicy(),
		timeout:  DefaultTimeout,
		memory:   newMemory(DefaultSessionMemory),
	}
	for _, o := range opts {
		if o != nil {
			o(e)
		}
	}
	return e
}

// Name returns extension.NameApproval ("approval"), the name the executor
// looks for before it runs a tool that requires approval.
func (e *Extension) Name() string { return extension.NameApproval }

// Priority returns extension.PriorityApproval.
func (e *Extension) Priority() int { return extension.PriorityApproval }

// Forget drops every decision remembered for the session of tenant (the
// calls' Principal.Tenant; "" when the calls carry none): call it when a
// conversation ends. Session names are given by clients, so another
// tenant's session of the same name is left as it is. A decision on a call
// of the session asked about before Forget, given after it, is not
// remembered.
func (e *Extension) Forget(tenant, session string) {
	if e.memory != nil {
		e.memory.forget(tenant, session)
	}
}

// Wrap implements extension.Extension.
func (e *Extension) Wrap(next extension.Handler) extension.Handler {
	if e.err != nil {
		// Built outside executor.New, which would have refused it.
		return func(_ context.Context, req *extension.Request) *tool.Result {
			res := deny(req, "approval", fmt.Sprintf("tool %q cannot run: approvals are not set up correctly here; do not retry: tell the user", req.Call.Name), nil)
			res.Error.Err = e.err
			return res
		}
	}
	if !e.noGuard && !e.takeArmed() {
		return func(_ context.Context, req *extension.Request) *tool.Result {
			res := deny(req, "approval", fmt.Sprintf("tool %q cannot run: approvals are not set up correctly here; do not retry: tell the user", req.Call.Name), nil)
			res.Error.Err = errMissingGuard
			return res
		}
	}
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		return e.handle(ctx, req, next)
	}
}

// errMissingGuard is the developer's side of a refusal whose model-facing
// message only says the tool cannot run: it travels in the error's cause,
// which logs and errors.Is see and no model is sent.
var errMissingGuard = errors.New("approvalgate: the extension is installed without its guard, so an approval could not be bound to the arguments that run: add ext.Guard() to the same executor's extensions (or build the extension with approvalgate.WithoutGuard())")

// errNoBinding is the developer's side of a guard refusing a call that
// carries no approval from its extension.
var errNoBinding = errors.New("approvalgate: the call reached the backend without passing its approval extension (or an extension further in removed the approval): install ext and ext.Guard() from the same approvalgate.New in the same executor")

func (e *Extension) takeArmed() bool {
	for {
		n := e.armed.Load()
		if n <= 0 {
			return false
		}
		if e.armed.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

func (e *Extension) handle(ctx context.Context, req *extension.Request, next extension.Handler) *tool.Result {
	if req.Spec == nil {
		return deny(req, "approval", "the call carries no tool spec, so its risk cannot be judged", nil)
	}
	areq := approval.Request{Call: req.Call, Spec: *req.Spec, Tool: req.Tool, Principal: req.Call.Principal}
	areq.Level, areq.Reasons = approval.LevelOf(req.Tool, req.Spec, req.Call.Args)
	if v, ok := req.Get(approval.RequiredKey); ok {
		s, isString := v.(string)
		switch {
		case !isString:
			s = fmt.Sprintf("an extension demands approval (%s holds a %T, not a reason string)", approval.RequiredKey, v)
		case s == "":
			s = "the operating mode requires approval"
		}
		areq.Required = s
	}
	ev := e.policy.Evaluate(req.Tool, &areq)
	switch ev.Action {
	case approval.ActionAllow:
		if res := e.rememberedDenial(ctx, req); res != nil {
			return res
		}
		return e.run(ctx, req, next, nil)
	case approval.ActionRefuse:
		tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalDecided, CallID: req.Call.ID, Tool: req.Call.Name, Decision: approval.Deny.String(), DecidedBy: "policy", Reason: ev.Reason})
		res := deny(req, "policy", ev.Reason, map[string]any{"decision": "deny", "decided_by": "policy", "rule": ev.Rule})
		if ev.Rule == "" && areq.Level >= classify.Blocked {
			// Nobody was asked and nobody could approve it: the same code
			// the shell tool gives a blocked command.
			res.Error = tool.NewError(tool.CodePolicyDenied, "the call is blocked ("+strings.Join(areq.Reasons, "; ")+"): it is never run, in any mode; do this another way or ask the user to do it")
			res.Status = res.Error.Code.Status()
		}
		return res
	}
	return e.ask(ctx, req, next, &areq, ev)
}

func (e *Extension) ask(ctx context.Context, req *extension.Request, next extension.Handler, areq *approval.Request, ev approval.Evaluation) *tool.Result {
	hash, err := approval.HashArgs(req.Call.Args)
	if err != nil {
		return deny(req, "approval", "the arguments cannot be hashed for approval: "+err.Error(), nil)
	}
	session := req.Call.Session
	remember := e.memory != nil && session != "" && areq.Required == ""
	var key memKey
	if remember {
		key = keyOf(&req.Call, hash)
		// A tool on the always-ask list, or whose spec requires approval,
		// is asked about on every call (ev.EveryCall): only
		// a remembered denial (the safe direction) answers for it.
		if d, ok := e.recall(key, req); ok && (d.Kind == approval.Deny || !ev.EveryCall) {
			e.decided(ctx, req, d.Kind, d.DecidedBy, "remembered for the session: "+d.Message, 0)
			meta := map[string]any{"decision": d.Kind.String(), "decided_by": d.DecidedBy, "scope": d.Scope.String(), "remembered": true, "args_hash": hash}
			if d.Kind != approval.Approve {
				return deny(req, d.DecidedBy, denyMessage(d), meta)
			}
			return e.run(ctx, req, next, meta)
		}
	}
	var since uint64
	if remember {
		// A Forget of this session while the person decides (the
		// conversation ended) is not undone by the decision arriving after.
		since = e.memory.begin()
		defer e.memory.end()
	}
	if areq.Subject == "" {
		areq.Subject, _ = approval.SubjectOf(req.Tool, req.Call.Args)
	}
	areq.Why = ev.Reason
	// What a session-wide decision would not be remembered for: the
	// approver offers this call alone.
	areq.OnceOnly = !remember || ev.EveryCall
	tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalRequested, CallID: req.Call.ID, Tool: req.Call.Name, Reason: ev.Reason})
	// The approver gets copies of what it could write into: the call's
	// argument buffer and roles are the ones that run, and one written in
	// place would run unseen by the schema, the policy and the hash the
	// decision is bound to (an approver that ignores its context may
	// still hold them after the call returned); the spec's slices are the
	// registered tool's, for every later call (a tag written in place
	// would make a payment retry-safe).
	shown := areq.Clone()
	if shown.Tool != nil {
		shown.Tool = shownTool{shown.Tool}
	}
	start := time.Now()
	var d approval.Decision
	ask := func() { d, err = e.consult(ctx, shown) }
	// Calls behind this one on the same files go ahead while a person
	// decides (extension.LockQueue).
	if req.Queue != nil {
		req.Queue.StepAside(ask)
	} else {
		ask()
	}
	latency := time.Since(start)
	if err == nil {
		if cerr := d.Check(); cerr != nil {
			err = &setupFault{fmt.Errorf("the approver returned a malformed decision: %w", cerr)}
		}
	}
	if err != nil {
		tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalDecided, CallID: req.Call.ID, Tool: req.Call.Name,
			Decision: approval.Deny.String(), DecidedBy: "approval", Reason: err.Error(), Error: err.Error(), Latency: latency})
		res := deny(req, "approval", err.Error(), map[string]any{"decision": "deny", "decided_by": "approval", "error": err.Error()})
		var fault *setupFault
		if errors.As(err, &fault) {
			// The model can do nothing about the approval set-up: it is
			// told the call did not run; what broke is the cause.
			res.Error.Message = fmt.Sprintf("tool %q was not run: it needs a person's approval, and none could be obtained here; do not retry now: tell the user", req.Call.Name)
			res.Error.Err = fault.err
		}
		return res
	}
	meta := map[string]any{"decision": d.Kind.String(), "decided_by": d.DecidedBy, "scope": d.Scope.String(), "latency": latency.String()}
	switch d.Kind {
	case approval.Approve:
		meta["args_hash"] = hash
		switch {
		case d.Scope == approval.ScopeCall:
		case ev.EveryCall:
			// An always-ask tool's approval covers this call only.
			meta["scope"] = approval.ScopeCall.String()
		case remember:
			e.memory.put(key, d, idOf(req), since)
		}
		e.decided(ctx, req, d.Kind, d.DecidedBy, d.Message, latency)
		return e.run(ctx, req, next, meta)
	case approval.Modify:
		args, verr := approval.ValidateArgs(req.Spec, d.Args)
		if verr != nil {
			msg := fmt.Sprintf("the arguments %s gave in place of the model's are invalid, so the call did not run: %v", who(d), verr)
			e.decided(ctx, req, approval.Deny, d.DecidedBy, msg, latency)
			meta["decision"], meta["error"] = "deny", msg
			return deny(req, d.DecidedBy, msg, meta)
		}
		newHash, herr := approval.HashArgs(args)
		if herr != nil {
			return deny(req, "approval", "the modified arguments cannot be hashed: "+herr.Error(), meta)
		}
		meta["modified"], meta["original_args_hash"], meta["args_hash"] = true, hash, newHash
		meta["scope"] = approval.ScopeCall.String()
		// The new arguments are a new call: what the approval policy
		// refuses outright (a deny rule, a blocked command) no reviewer
		// can let run by writing it in place of the model's arguments.
		mreq := *areq
		mreq.Call.Args, mreq.Subject = args, ""
		mreq.Level, mreq.Reasons = approval.LevelOf(req.Tool, req.Spec, args)
		if mev := e.policy.Evaluate(req.Tool, &mreq); mev.Action == approval.ActionRefuse {
			msg := fmt.Sprintf("the arguments %s gave in place of the model's are refused, so the call did not run: %s", who(d), mev.Reason)
			e.decided(ctx, req, approval.Deny, "policy", msg, latency)
			meta["decision"], meta["error"], meta["rule"] = "deny", msg, mev.Rule
			return deny(req, "policy", msg, meta)
		}
		// The extensions outside (the governance policy) judged only the
		// model's arguments; one that left its judge judges these.
		if v, ok := req.Get(approval.JudgeKey); ok {
			judge, isJudge := v.(approval.ArgsJudge)
			var jerr error
			if !isJudge {
				jerr = fmt.Errorf("an extension left a %T under %s, not an approval.ArgsJudge, so no modification can be judged", v, approval.JudgeKey)
			} else {
				c := req.Call
				c.Args = args
				jerr = judge.JudgeArgs(c, req.Tool, req.Spec)
			}
			if jerr != nil {
				msg := fmt.Sprintf("the arguments %s gave in place of the model's are refused, so the call did not run: %v", who(d), jerr)
				e.decided(ctx, req, approval.Deny, "policy", msg, latency)
				meta["decision"], meta["error"] = "deny", msg
				return deny(req, "policy", msg, meta)
			}
		}
		req.Call.Args = args
		e.decided(ctx, req, d.Kind, d.DecidedBy, d.Message, latency)
		return e.run(ctx, req, next, meta)
	case approval.Deny:
		if remember && d.Scope != approval.ScopeCall {
			e.memory.put(key, d, idOf(req), since)
			// The tool denied is also the one it runs (Unwrap): its
			// other names are refused with it.
			for _, n := range tool.UnwrappedNames(req.Tool, req.Call.Name) {
				k := key
				k.tool = n
				e.memory.put(k, d, idOf(req), since)
			}
		}
		e.decided(ctx, req, d.Kind, d.DecidedBy, d.Message, latency)
		return deny(req, d.DecidedBy, denyMessage(d), meta)
	default: // Abstain: nobody decided
		msg := fmt.Sprintf("tool %q was not run: %s did not decide (abstained) and nobody else was asked; do not retry now: tell the user", req.Call.Name, who(d))
		e.decided(ctx, req, approval.Deny, d.DecidedBy, msg, latency)
		meta["decision"] = "deny"
		res := deny(req, d.DecidedBy, msg, meta)
		// For the program, which the model is not sent: an approval.Policy
		// abstains on what it would ask a person about.
		why := ""
		if d.Message != "" {
			why = " (" + d.Message + ")"
		}
		res.Error.Err = fmt.Errorf("approvalgate: %s abstained%s and no approver after it decides: chain one that asks a person (approval.FirstDecisive(policy, queue)), or pass a nil approver to deny such calls with their reason", cmp.Or(d.DecidedBy, "the approver"), why)
		return res
	}
}

// rememberedDenial refuses a call the policy allows unasked when a person
// denied it for the session: its tool (approval.ScopeSessionTool, "later
// calls to the same tool, whatever their arguments") or these arguments.
// The arguments are hashed only when the memory holds a denial.
func (e *Extension) rememberedDenial(ctx context.Context, req *extension.Request) *tool.Result {
	if e.memory == nil || req.Call.Session == "" || !e.memory.holdsDenials() {
		return nil
	}
	hash, err := approval.HashArgs(req.Call.Args)
	if err != nil {
		return deny(req, "approval", "the arguments cannot be hashed for approval: "+err.Error(), nil)
	}
	d, ok := e.recall(keyOf(&req.Call, hash), req)
	if !ok || d.Kind != approval.Deny {
		return nil
	}
	e.decided(ctx, req, d.Kind, d.DecidedBy, "remembered for the session: "+d.Message, 0)
	return deny(req, d.DecidedBy, denyMessage(d), map[string]any{"decision": d.Kind.String(), "decided_by": d.DecidedBy, "scope": d.Scope.String(), "remembered": true, "args_hash": hash})
}

// recall returns the decision remembered for the call of key; a denial
// remembered under the name of a tool the called one runs (Unwrap: a tool
// file's go tool over a Go implementation, registered under another name
// and risk) refuses it too.
func (e *Extension) recall(key memKey, req *extension.Request) (approval.Decision, bool) {
	d, ok := e.memory.get(key, idOf(req))
	if ok && d.Kind == approval.Deny {
		return d, true
	}
	for _, n := range tool.UnwrappedNames(req.Tool, req.Call.Name) {
		k := key
		k.tool = n
		if dn, found := e.memory.get(k, toolID{}); found && dn.Kind == approval.Deny {
			return dn, true
		}
	}
	return d, ok
}

// shownTool is the called tool as an approver is shown it: a tool's Spec()
// shares its slices with the registry's entry (the spec every later call
// is judged, retried and listed by), so it returns a copy. The tool itself
// is reached through Unwrap (tool.As), as a policy in a chain of approvers
// reads how the tool judges its calls.
type shownTool struct{ t tool.Tool }

func (s shownTool) Spec() tool.Spec { return s.t.Spec().Clone() }
func (s shownTool) Run(ctx context.Context, call tool.Call) (*tool.Result, error) {
	return s.t.Run(ctx, call)
}
func (s shownTool) Unwrap() tool.Tool { return s.t }

func who(d approval.Decision) string {
	if d.DecidedBy == "" {
		return "the approver"
	}
	return d.DecidedBy
}

func denyMessage(d approval.Decision) string {
	if d.Message == "" {
		return fmt.Sprintf("%s denied this call", who(d))
	}
	return fmt.Sprintf("%s denied this call: %s", who(d), d.Message)
}

func (e *Extension) decided(ctx context.Context, req *extension.Request, k approval.Kind, by, reason string, latency time.Duration) {
	tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalDecided, CallID: req.Call.ID, Tool: req.Call.Name, Decision: k.String(), DecidedBy: by, Reason: reason, Latency: latency})
}

// setupFault is a failure of the approval set-up (no approver, an
// approver's error or panic, a malformed decision): the developer's
// business, not the model's.
type setupFault struct{ err error }

func (f *setupFault) Error() string { return f.err.Error() }
func (f *setupFault) Unwrap() error { return f.err }

// approverGrace is how long a call whose approval wait ended (cancelled,
// timed out) waits for the approver to return before it returns itself.
const approverGrace = time.Second

type answer struct {
	d   approval.Decision
	err error
}

// consult asks the approver under the approval timeout. The approver runs
// in its own goroutine so that one which ignores its context (a terminal
// blocked on a read) cannot hold the call more than approverGrace past the
// deadline; that goroutine ends when the approver returns.
func (e *Extension) consult(ctx context.Context, areq approval.Request) (approval.Decision, error) {
	if e.approver == nil {
		return approval.Decision{}, &setupFault{fmt.Errorf("tool %q needs approval (%s), but no approver is configured: pass an approval.Approver to approvalgate.New", areq.Call.Name, areq.Why)}
	}
	actx, cancel := ctx, context.CancelFunc(func() {})
	if e.timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, e.timeout)
	}
	defer cancel()
	ch := make(chan answer, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- answer{err: &setupFault{fmt.Errorf("the approver panicked: %v", p)}}
			}
		}()
		d, err := e.approver.Approve(actx, areq)
		ch <- answer{d, err}
	}()
	var a answer
	select {
	case a = <-ch:
	case <-actx.Done():
		// Give the approver a grace to see its context end and withdraw
		// its request (a Queue), so that when the call returns the request
		// is no longer listed as pending and an answer given now is
		// refused, not taken for a call that will never run.
		t := time.NewTimer(approverGrace)
		select {
		case a = <-ch:
		case <-t.C:
		}
		t.Stop()
	}
	// A decision that arrives as the context ends does not count: the
	// caller has gone, or the time to decide is over.
	switch {
	case ctx.Err() != nil:
		return approval.Decision{}, fmt.Errorf("the call was cancelled while waiting for approval: %v", ctx.Err())
	case actx.Err() != nil:
		return approval.Decision{}, fmt.Errorf("no approval decision within %v: the call did not run", e.timeout)
	case a.err != nil:
		if f, ok := a.err.(*setupFault); ok {
			return approval.Decision{}, f
		}
		if errors.Is(a.err, approval.ErrTimeout) {
			// A queue whose own timeout passed: nobody decided, as above.
			return approval.Decision{}, fmt.Errorf("no approval decision in time: the call did not run (%w)", a.err)
		}
		return approval.Decision{}, &setupFault{fmt.Errorf("approval could not be obtained: %w", a.err)}
	}
	return a.d, nil
}

// run binds the call for the Guard and runs the rest of the chain.
func (e *Extension) run(ctx context.Context, req *extension.Request, next extension.Handler, meta map[string]any) *tool.Result {
	if !e.noGuard {
		c := &req.Call
		b := &binding{owner: e, id: c.ID, tool: c.Name, spec: req.Spec, impl: req.Tool,
			principal: c.Principal.ID, tenant: c.Principal.Tenant, session: c.Session, agent: c.Agent}
		if len(c.Principal.Roles) <= len(b.smallRoles) {
			b.roles = b.smallRoles[:copy(b.smallRoles[:], c.Principal.Roles)]
		} else {
			b.roles = slices.Clone(c.Principal.Roles)
		}
		if len(req.Call.Args) <= len(b.small) {
			b.args = b.small[:copy(b.small[:], req.Call.Args)]
		} else {
			b.args = bytes.Clone(req.Call.Args)
		}
		ctx = context.WithValue(ctx, bindingKey{}, b)
	}
	res := next(ctx, req)
	if meta != nil {
		res.SetMeta(approval.MetaKey, meta)
		if meta["modified"] == true {
			res.SetMeta(approval.MetaModifiedKey, true)
		}
	}
	return res
}

func deny(req *extension.Request, by, msg string, meta map[string]any) *tool.Result {
	res := tool.Fail(&req.Call, tool.CodeApprovalDenied, msg)
	if meta == nil {
		meta = map[string]any{"decision": "deny", "decided_by": by}
	}
	res.SetMeta(approval.MetaKey, meta)
	return res
}

// bindingKey is the context key of the binding. The binding travels in the
// context, not in the request's values, because both its key and its type
// are private: an extension further in can neither forge nor replace it,
// only drop it (by calling next with another context), which the guard
// treats as no approval at all.
type bindingKey struct{}

// binding is what an approval covers: the call, and whom it acts for.
type binding struct {
	owner *Extension
	id    string
	tool  string
	spec  *tool.Spec // the request's, by identity: the executor judges it
	impl  tool.Tool  // the request's: the backend runs it
	args  []byte     // a copy: an in-place edit of the call's buffer shows
	small [96]byte

	principal, tenant, session, agent string
	roles                             []string // a copy, as args
	smallRoles                        [4]string

	once sync.Once
	hash string
	err  error
}

// sameTool reports whether a and b are the same tool: equal when their
// type can be compared (a pointer, as registered tools are), else of the
// same type and name (a value holding a slice has no identity to tell
// apart).
func sameTool(a, b tool.Tool) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() {
		return false
	}
	if va.Kind() == reflect.Pointer {
		return va.Pointer() == vb.Pointer()
	}
	if va.Comparable() && vb.Comparable() {
		return va.Equal(vb)
	}
	// No identity to compare: the names they give, which no two tools of
	// one registry share (another registered tool of the same type put in
	// the request is told apart).
	return a.Spec().Name == b.Spec().Name
}

func (b *binding) argsHash() (string, error) {
	b.once.Do(func() { b.hash, b.err = approval.HashArgs(b.args) })
	return b.hash, b.err
}

// Guard returns the extension that checks, right before the backend, that
// the call is still the one the approval extension let through: same id,
// same tool (its name, and the request's Tool and Spec), arguments with the same canonical hash, acting for the same
// principal (id, tenant, roles) in the same session for the same agent.
// Install it in the same
// executor as e. A call that reaches it without a binding from e is denied.
func (e *Extension) Guard() extension.Extension { return guard{e} }

type guard struct{ e *Extension }

// CheckChain implements extension.ChainChecker: e without its own guard in
// the same executor, or with its guard running outside it, is refused at
// executor.New (every call would be). Either may be re-placed
// (extension.WithPriority): it is found through the re-placement and
// judged at the priority given.
func (e *Extension) CheckChain(exts []extension.Extension) error {
	if e.noGuard {
		return nil
	}
	sorted := extension.Sort(exts)
	self := slices.IndexFunc(sorted, func(x extension.Extension) bool {
		y, ok := extension.As[*Extension](x)
		return ok && y == e
	})
	for i, x := range sorted {
		if g, ok := extension.As[guard](x); ok && g.e == e {
			if i < self {
				return fmt.Errorf("approvalgate: the guard runs outside the approval extension (priority %d, approval's %d), before any call is approved, so it would refuse every call: leave it at approvalgate.PriorityGuard, or give extension.WithPriority priorities that put it after the approval extension",
					x.Priority(), sorted[self].Priority())
			}
			return nil
		}
	}
	return errMissingGuard
}

// Check reports configuration mistakes found by New (a nil policy).
// executor.New runs it.
func (e *Extension) Check() error { return e.err }

// CheckRegistry reports approval policy rules that name tools reg does not
// have (approval.Policy.CheckTools), with the closest names: a typo in a
// deny or ask rule would let the real tool run unasked. executor.New runs
// it; register tools before building the executor.
func (e *Extension) CheckRegistry(reg extension.ToolLister) error {
	return e.policy.CheckTools(reg.Names(), func(name string) []string { return reg.Suggest(name, 1) })
}

func (g guard) Name() string  { return "approval-guard" }
func (g guard) Priority() int { return PriorityGuard }

func (g guard) Wrap(next extension.Handler) extension.Handler {
	g.e.armed.Add(1)
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		if msg, cause := g.check(ctx, req); msg != "" {
			res := deny(req, "approval-guard", msg, map[string]any{"decision": "deny", "decided_by": "approval-guard"})
			res.Error.Err = cause
			return res
		}
		return next(ctx, req)
	}
}

// check returns the model-facing reason to refuse the call ("" to let it
// run) and, for a configuration mistake, the developer's side as a cause.
func (g guard) check(ctx context.Context, req *extension.Request) (string, error) {
	b, _ := ctx.Value(bindingKey{}).(*binding)
	if b == nil || b.owner != g.e {
		return fmt.Sprintf("tool %q cannot run: its approval could not be confirmed; do not retry: tell the user", req.Call.Name), errNoBinding
	}
	if req.Spec != b.spec || !sameTool(req.Tool, b.impl) {
		return fmt.Sprintf("tool %q cannot run: the call changed after approval (the tool it runs), and an approval covers only the call that was approved; do not retry: tell the user", req.Call.Name),
			fmt.Errorf("approvalgate: call %q to %q was approved for one tool (%T) and now runs another (%T) or another spec: an extension further in the chain replaced the request's Tool or Spec; choose the tool before the approval extension, at a priority below 800 (extension.PriorityApproval), so that the approver sees it", b.id, b.tool, b.impl, req.Tool)
	}
	if req.Call.ID != b.id || req.Call.Name != b.tool {
		return fmt.Sprintf("tool %q cannot run: the call changed after approval, and an approval covers only the call that was approved; do not retry: tell the user", req.Call.Name),
			fmt.Errorf("approvalgate: approved call %q to %q, now call %q to %q: an extension further in the chain changed the call", b.id, b.tool, req.Call.ID, req.Call.Name)
	}
	if c := &req.Call; c.Principal.ID != b.principal || c.Principal.Tenant != b.tenant || !slices.Equal(c.Principal.Roles, b.roles) ||
		c.Session != b.session || c.Agent != b.agent {
		// Who it was approved for stays in the cause: the model may be
		// another principal's.
		return fmt.Sprintf("tool %q cannot run: the call changed after approval (whom it acts for), and an approval covers only the call that was approved; do not retry: tell the user", req.Call.Name),
			fmt.Errorf("approvalgate: call %q was approved for principal %q of tenant %q (roles %q) in session %q by agent %q, and now acts for %q of tenant %q (roles %q) in session %q by agent %q: an extension further in the chain changed it; set whom a call acts for (principal, roles, session, agent) before the approval extension, in an extension at a priority below 800 (extension.PriorityApproval), so that the approver sees it",
				b.id, b.principal, b.tenant, b.roles, b.session, b.agent, c.Principal.ID, c.Principal.Tenant, c.Principal.Roles, c.Session, c.Agent)
	}
	if bytes.Equal(req.Call.Args, b.args) {
		return "", nil
	}
	changed := fmt.Sprintf("tool %q cannot run: its arguments changed after approval, and an approval covers only the arguments that were approved; do not retry: tell the user", req.Call.Name)
	want, err := b.argsHash()
	if err != nil {
		return changed, fmt.Errorf("approvalgate: the approved arguments cannot be hashed: %w", err)
	}
	got, err := approval.HashArgs(req.Call.Args)
	if err != nil {
		return changed, fmt.Errorf("approvalgate: the arguments that reached the guard cannot be hashed: %w", err)
	}
	if got != want {
		return changed, fmt.Errorf("approvalgate: approved arguments %s, now %s: most likely rewritten by an extension further in the chain", want, got)
	}
	return "", nil
}

// memory remembers session-scoped decisions, at most max of them; the
// oldest is forgotten first. A decision covers whom the call the person was
// shown acts for, as the guard's binding does: a session id is a name a
// caller gives, and another principal (or another tenant's principal with
// the same id) in a session of the same name is asked again, and so are
// the same principal with other roles and another agent in the session
// (a browsing agent does not inherit what the coding agent was allowed).
// An approval covers the registered tool it was given for (its spec, by
// identity) and the implementation the approver was shown (toolID): a tool
// registered again under the same name (registry.Remove and Register, an
// MCP server's changed tool listed anew), or routed to another
// implementation, is asked about again. A denial refuses the tool of that
// name, whatever is registered.
type memory struct {
	mu      sync.Mutex
	m       map[memKey]remembered
	ring    []memKey // grows to max as decisions come, then is reused
	max     int
	next    int
	denials atomic.Int64 // how many of m's decisions are denials

	// While approvers are asked, the Forgets of that time: a decision
	// for a session forgotten after it was asked about is not kept.
	forgets uint64               // Forgets so far
	asking  int                  // asks in flight (begin, end)
	forgot  map[[2]string]uint64 // tenant, session: forgets at its last Forget
	// forgotAll: forgets when forgot overflowed; an ask begun before it
	// stores nothing.
	forgotAll uint64
}

type memKey struct {
	session, tenant, principal, tool string
	roles                            string // length-prefixed, in order (rolesKey)
	agent                            string
	hash                             string // empty for a whole-tool decision
}

// keyOf is the memory key of call, with its arguments' hash.
func keyOf(c *tool.Call, hash string) memKey {
	p := &c.Principal
	return memKey{session: c.Session, tenant: p.Tenant, principal: p.ID, tool: c.Name,
		roles: rolesKey(p.Roles), agent: c.Agent, hash: hash}
}

// rolesKey joins roles with each one's length first, so that no two lists
// ("a,b" and "a", "b") read the same.
func rolesKey(roles []string) string {
	var b strings.Builder
	for _, r := range roles {
		b.WriteString(strconv.Itoa(len(r)))
		b.WriteByte(':')
		b.WriteString(r)
	}
	return b.String()
}

func newMemory(max int) *memory {
	return &memory{m: make(map[memKey]remembered), max: max}
}

// remembered is a decision and the tool it was given for.
type remembered struct {
	d  approval.Decision
	id toolID
}

// toolID is a call's tool as the approver was shown it: the request's Spec
// (by identity: the registered tool) and Tool (the implementation that
// runs, which an extension before the approval one may have chosen).
type toolID struct {
	spec *tool.Spec
	impl tool.Tool
}

func idOf(req *extension.Request) toolID { return toolID{req.Spec, req.Tool} }

// covers reports whether r answers for a call of the tool id: a denial
// always, an approval only for the tool it was given for.
func (r remembered) covers(id toolID) bool {
	return r.d.Kind == approval.Deny || (r.id.spec == id.spec && sameTool(r.id.impl, id.impl))
}

// begin marks an ask in flight and returns the count of Forgets so far,
// for put; end must follow.
func (m *memory) begin() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asking++
	return m.forgets
}

// end marks an ask begun with begin as over.
func (m *memory) end() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.asking--; m.asking == 0 {
		clear(m.forgot)
	}
}

// put remembers d for k, unless k's session was forgotten since the ask
// that gave d began (since, from begin).
func (m *memory) put(k memKey, d approval.Decision, id toolID, since uint64) {
	if d.Scope == approval.ScopeSessionTool {
		k.hash = ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if n, ok := m.forgot[[2]string{k.tenant, k.session}]; (ok && n > since) || m.forgotAll > since {
		return
	}
	if _, ok := m.m[k]; !ok && len(m.ring) < m.max {
		m.ring = append(m.ring, k)
	} else if !ok {
		if old := m.ring[m.next]; old != (memKey{}) {
			m.drop(old)
		}
		m.ring[m.next] = k
		m.next = (m.next + 1) % len(m.ring)
	}
	m.drop(k)
	m.m[k] = remembered{d, id}
	if d.Kind == approval.Deny {
		m.denials.Add(1)
	}
}

// drop forgets k's decision, if any. m.mu is held.
func (m *memory) drop(k memKey) {
	if r, ok := m.m[k]; ok {
		delete(m.m, k)
		if r.d.Kind == approval.Deny {
			m.denials.Add(-1)
		}
	}
}

// holdsDenials reports whether any denial is remembered, so that a call
// the policy allows is looked up (its arguments hashed) only then.
func (m *memory) holdsDenials() bool { return m.denials.Load() > 0 }

// get returns the remembered decision for the call; a remembered denial
// wins over a remembered approval. An approval given for another tool of
// the same name (spec), or another implementation, is not returned.
func (m *memory) get(k memKey, id toolID) (approval.Decision, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	byArgs, okA := m.m[k]
	okA = okA && byArgs.covers(id)
	k.hash = ""
	byTool, okT := m.m[k]
	okT = okT && byTool.covers(id)
	switch {
	case okT && byTool.d.Kind == approval.Deny:
		return byTool.d, true
	case okA:
		return byArgs.d, true
	}
	return byTool.d, okT
}

func (m *memory) forget(tenant, session string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forgets++
	if m.asking > 0 {
		if m.forgot == nil {
			m.forgot = make(map[[2]string]uint64)
		}
		if _, ok := m.forgot[[2]string{tenant, session}]; !ok && len(m.forgot) >= m.max {
			// Past as many sessions as decisions are kept (asks that
			// never end, with no timeout): no ask in flight now stores
			// its decision, whatever its session.
			m.forgotAll = m.forgets
			clear(m.forgot)
		} else {
			m.forgot[[2]string{tenant, session}] = m.forgets
		}
	}
	// Their places in the ring go too: a key left there would, reached
	// again, drop the same key's later decision long before its turn.
	for i, k := range m.ring {
		if k != (memKey{}) && k.session == session && k.tenant == tenant {
			m.drop(k)
			m.ring[i] = memKey{}
		}
	}
}

var _ extension.Extension = (*Extension)(nil)
