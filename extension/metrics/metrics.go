// Package metrics is the executor extension that measures tool calls: calls
// by tool and status, errors by code, latency histograms with fixed buckets,
// calls in flight, approval outcomes and rate-limited calls.
//
// Measurements go to Recorders. The extension always feeds an in-memory
// recorder (Memory, built on atomics, read with Snapshot) and, with
// WithRecorder, any other: the adapters in the sub-packages
// extension/metrics/promcollector (a prometheus.Collector) and
// extension/metrics/otelmetric (OpenTelemetry instruments) implement
// Recorder, so this package imports neither client.
//
// Approval and rate-limit outcomes are derived from what the chain leaves
// behind, because those extensions run further in:
//   - an approval_decided event (tool.EventApprovalDecided) emitted further
//     in counts its Decision ("approve", "deny", "modify"), unless it names
//     another call (its CallID or Tool): the calls a tool makes of its own
//     send their events out through the call's context too;
//   - a result whose Metadata["approval"] is a decision (a string, a
//     fmt.Stringer, or a map with a "decision" key, as the approval
//     extension and the executor's own refusals write), or that has only
//     Metadata["modified_args"] (a modification), counts it, when no
//     event was seen. A result's error code alone (tool.CodeApprovalDenied)
//     counts no decision: a tool's own error could claim one, and the
//     executor takes the metadata out of what a tool returns;
//   - a result with tool.CodeRateLimited counts as rate limited.
//
// Tool names come from the registry (calls to unknown tools never reach the
// chain), so label cardinality is bounded by the number of registered tools.
package metrics

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/approvalmeta"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Approval decisions as recorded.
const (
	DecisionApprove = "approve"
	DecisionDeny    = "deny"
	DecisionModify  = "modify"
)

// MetaApproval ("approval", approval.MetaKey) is the result metadata key
// read for an approval decision.
const MetaApproval = approvalmeta.Key

// Observation is one finished call, as a Recorder sees it.
type Observation struct {
	// Tool is the tool's name (a registered one, or UnknownTool).
	Tool string
	// Status is how the call ended: one of tool's five statuses, or Other
	// (see Observe).
	Status tool.Status
	// Code is the error code, one of tool.Codes or Other; empty on success.
	Code tool.Code
	// Duration is the time from the executor receiving the call
	// (extension.Request.Received) until the extensions further in
	// returned: validation and the chain from this extension inward.
	Duration time.Duration
	// Attempts is how many times the backend ran (0 if it never did).
	Attempts int
	// Approval is the approval decision ("approve", "deny", "modify", or
	// Other), or empty when the call did not go through approval.
	Approval string
	// RateLimited is true when a rate limit refused the call.
	RateLimited bool
}

// Recorder receives measurements. Implementations must be safe for
// concurrent use and must not block: they run on the call's path. A panic
// in Start or Finish is recovered and loses that measurement in that
// recorder only (one whose Start panicked is not told the call's end); it
// never becomes the call's answer. A recorder that blocks holds the call:
// nothing stops waiting for it (a guard, a goroutine or a timer per
// measurement, would cost every call). It holds that call only: no lock is
// held while recorders run, and the in-memory recorder, told first, has
// counted the call already. A recorder that sends to a slow sink (a
// network) queues the measurement for a goroutine of its own. A call whose chain did not return (a
// backend run in the caller's goroutine that called runtime.Goexit) is
// told its end too, as the executor answers it: StatusFailed,
// tool.CodeInternal.
type Recorder interface {
	// Start is called when a call enters the extension (in flight +1).
	Start(toolName string)
	// Finish is called with the call's outcome (in flight -1).
	Finish(o Observation)
}

// Extension measures calls. Build it with New.
type Extension struct {
	mem       *Memory
	recorders []Recorder
}

// Option configures the extension.
type Option func(*Extension)

// WithRecorder sends measurements to r as well (for example a Prometheus or
// OpenTelemetry adapter). The in-memory recorder is always fed.
func WithRecorder(r ...Recorder) Option {
	return func(e *Extension) {
		for _, x := range r {
			if x != nil {
				e.recorders = append(e.recorders, x)
			}
		}
	}
}

// WithMemory makes the extension feed m instead of a new Memory, so several
// executors can share one.
func WithMemory(m *Memory) Option {
	return func(e *Extension) {
		if m != nil {
			e.mem = m
		}
	}
}

// New returns the metrics extension. With no options it records into a new
// in-memory recorder, read with Snapshot.
func New(opts ...Option) *Extension {
	e := &Extension{}
	for _, o := range opts {
		if o != nil {
			o(e)
		}
	}
	if e.mem == nil {
		e.mem = NewMemory()
	}
	e.recorders = append([]Recorder{e.mem}, e.recorders...)
	return e
}

// Memory returns the in-memory recorder.
func (e *Extension) Memory() *Memory { return e.mem }

// Snapshot returns the in-memory recorder's current values.
func (e *Extension) Snapshot() Snapshot { return e.mem.Snapshot() }

// Name implements extension.Extension.
func (e *Extension) Name() string { return "metrics" }

// Priority implements extension.Extension: extension.PriorityMetrics.
func (e *Extension) Priority() int { return extension.PriorityMetrics }

// approvalSeen collects an approval decision emitted further in.
type approvalSeen struct{ decision atomic.Pointer[string] }

// Wrap implements extension.Extension.
func (e *Extension) Wrap(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		name := req.Call.Name
		// e.recorders[0] is e.mem: its stats are looked up once per call.
		st := e.mem.stats(name)
		st.inFlight.Add(1)
		others := e.recorders[1:]
		var unstarted []int // the others whose Start panicked: not told the end either
		for i, r := range others {
			if !start(r, name) {
				unstarted = append(unstarted, i)
			}
		}
		// Watch approval events on their way out to the executor's
		// emitter: tool.Emit on the outer ctx forwards them unchanged.
		// Only this call's: the calls a tool makes of its own (a
		// sub-agent's executor) send theirs out through this context too.
		seen := &approvalSeen{}
		outer := ctx
		id := req.Call.ID
		ctx = tool.WithEmitter(ctx, func(ev tool.Event) {
			if ev.Kind == tool.EventApprovalDecided && ev.Decision != "" && forCall(ev, id, name) {
				d := ev.Decision
				seen.decision.Store(&d)
			}
			tool.Emit(outer, ev)
		})
		start := req.Received // when the executor received the call
		if start.IsZero() {
			start = time.Now()
		}
		returned := false
		defer func() {
			if !returned {
				// A backend run in this goroutine ended it
				// (runtime.Goexit): the chain unwinds with no result, and
				// the executor answers the call with an internal error.
				// The call still ends here, or it would stay in flight
				// for good in every recorder.
				e.finishAll(st, Observation{Tool: name, Status: tool.StatusFailed, Code: tool.CodeInternal, Duration: time.Since(start)}, others, unstarted)
			}
		}()
		res := next(ctx, req)
		returned = true
		o := Observe(res)
		o.Tool = name
		o.Duration = time.Since(start)
		if d := seen.decision.Load(); d != nil {
			o.Approval = decisionLabel(*d)
		}
		e.finishAll(st, o, others, unstarted)
		return res
	}
}

// finishAll tells the recorders of a call the call's end: the in-memory
// one (whose stats are st) and the others but those whose Start panicked
// (their indexes in unstarted).
func (e *Extension) finishAll(st *toolStats, o Observation, others []Recorder, unstarted []int) {
	e.mem.finish(st, o)
	for i, r := range others {
		if !slices.Contains(unstarted, i) {
			finish(r, o)
		}
	}
}

// start calls r.Start and reports whether it returned. A Recorder's panic
// (a label value its client refuses, a bug) loses that measurement only:
// let through, it would become the call's answer (tool.CodePanic), after
// the tool ran, and a model told that a payment failed pays again.
func start(r Recorder, name string) (ok bool) {
	defer func() {
		if !ok {
			_ = recover()
		}
	}()
	r.Start(name)
	return true
}

// finish calls r.Finish; a panic loses that measurement only (see start).
func finish(r Recorder, o Observation) {
	defer func() { _ = recover() }()
	r.Finish(o)
}

// forCall reports whether ev, seen by the extension of the call with id
// and toolName, is that call's: an event that names another call (its
// CallID or Tool set and different) comes from a call the tool made of its
// own, whose events flow out through the same context. An event that names
// no call is taken as the call's.
func forCall(ev tool.Event, id, toolName string) bool {
	return (ev.CallID == "" || ev.CallID == id) && (ev.Tool == "" || ev.Tool == toolName)
}

// UnknownTool is the tool label of calls to a tool that is not registered:
// the name a model invented is not used as a label, so label cardinality
// stays bounded by the registry.
const UnknownTool = "(unknown)"

// Refused implements extension.Observer: calls the executor refused before
// the chain are counted too (by status and code), with the tool label
// UnknownTool when the tool does not exist.
func (e *Extension) Refused(_ context.Context, call *tool.Call, spec *tool.Spec, res *tool.Result) {
	name := call.Name
	if spec == nil {
		name = UnknownTool
	}
	o := Observe(res)
	o.Tool = name
	for _, r := range e.recorders {
		if start(r, name) {
			finish(r, o)
		}
	}
}

// Observe derives an Observation (status, code, attempts, approval,
// rate limit) from a result. Tool and Duration are left to the caller.
// Status, Code and Approval are label values: one outside its closed set
// (a tool's own Status, an extension's own code or decision) reads Other,
// as the in-memory recorder counts it, so that no result makes a new
// series, nor a label value a metrics client refuses (Prometheus panics
// on one that is not UTF-8).
func Observe(res *tool.Result) Observation {
	o := Observation{Status: res.SettledStatus(), Attempts: res.Attempts}
	if statusIndex(o.Status) == len(statuses) {
		o.Status = Other
	}
	if res.Error != nil {
		o.Code = res.Error.Code
		if codeIndex(o.Code) == len(tool.Codes) {
			o.Code = Other
		}
	}
	o.Approval = decisionLabel(decisionOf(res.Metadata))
	if o.Code == tool.CodeRateLimited {
		o.RateLimited = true
	}
	return o
}

// decisionOf is the decision meta records (approvalmeta.Decision), Other
// when reading it panics: a fmt.Stringer of an extension's own whose
// String does (a nil pointer). Let through, the panic would become the
// call's answer (tool.CodePanic), after the tool ran.
func decisionOf(meta map[string]any) (d string) {
	defer func() {
		if recover() != nil {
			d = Other
		}
	}()
	d, _ = approvalmeta.Decision(meta)
	return d
}

// decisionLabel is d, or Other when d is not empty and outside the known
// decisions.
func decisionLabel(d string) string {
	if d != "" && decisionIndex(d) == len(decisions) {
		return Other
	}
	return d
}
