// Package tracing is the executor extension that records an OpenTelemetry
// span per tool call.
//
// The span ("execute_tool <name>", kind internal) is a child of the span in
// the caller's context. When the context carries no span but the call does
// carry W3C ids (Call.TraceID, 32 hex digits, and Call.SpanID, 16), the span
// continues that remote trace instead. It carries the attributes
// gen_ai.operation.name, gen_ai.tool.name, gen_ai.tool.call.id,
// toolbelt.status, toolbelt.attempts and, on failure, error.type (the
// tool.Code) and span status Error with the error message, redacted by the
// one rule the logs and the audit trail use (internal/redact: secrets
// inside the text, and the call's secret argument values where it echoes
// them); each string is held to MaxValueBytes, since callers choose ids of
// any length, and made UTF-8 (bytes that are not read as U+FFFD), since an
// OTLP exporter drops a whole batch over one string that is not. Empty
// Call.TraceID and Call.SpanID are filled from the span, so the logging and
// audit extensions can correlate (a tool.Result carries no trace ids: a
// program correlates through the span in the context it passes).
//
// A call that waits for approval gets a child span "approval"
// (ApprovalSpanName) from the approval events the approval extension emits,
// with the decision and who made it; that extension imports no tracing
// library. Extensions further in open child spans of their own with
// StartChild. The Backend extension, added
// beside the call span's extension, opens a "backend" child span around each
// run of the backend itself, innermost in the chain, so retries show up as
// one span per attempt.
//
// A panic in the tracer provider's code (a span processor, an exporter run
// synchronously, a sampler, a span of a provider of the program's own
// whose methods panic) is recovered and loses that span's data only:
// tracing never changes whether a call runs or what it answers. A tracer
// of the program's own that returns a nil span makes no span. The
// provider's code runs on the call's goroutine: a processor that blocks
// holds the call, and one that calls runtime.Goexit ends the caller's
// goroutine, which nothing can recover. A call
// whose backend ends the caller's goroutine (runtime.Goexit) still ends
// its spans, with status Error and error.type internal, as the executor
// answers it.
package tracing

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/tool"
)

// ScopeName is the instrumentation scope (tracer name) of the spans.
const ScopeName = "github.com/toolbelt-go/toolbelt/extension/tracing"

// PriorityBackend places the Backend extension innermost: inside retry, so
// it wraps exactly one run of the backend.
const PriorityBackend = extension.PriorityRetry + 50

// Attribute keys set on the call span.
const (
	KeyOperation = attribute.Key("gen_ai.operation.name")
	KeyTool      = attribute.Key("gen_ai.tool.name")
	KeyCallID    = attribute.Key("gen_ai.tool.call.id")
	KeyStatus    = attribute.Key("toolbelt.status")
	KeyAttempts  = attribute.Key("toolbelt.attempts")
	KeyAttempt   = attribute.Key("toolbelt.attempt")
	KeyErrorType = attribute.Key("error.type")
	KeyAgent     = attribute.Key("toolbelt.agent")
	KeyPrincipal = attribute.Key("enduser.id")
)

// ApprovalSpanName is the name of the child span around a call's wait for
// approval.
const ApprovalSpanName = "approval"

// Attributes of the approval span.
const (
	// KeyApprovalDecision is the decision: "approve", "deny" or "modify"
	// ("deny" when the approver failed, with the span status Error).
	KeyApprovalDecision = attribute.Key("toolbelt.approval.decision")
	// KeyApprovalDecidedBy is who decided.
	KeyApprovalDecidedBy = attribute.Key("toolbelt.approval.decided_by")
)

// Extension opens the call span. Build it with New.
type Extension struct {
	tracer trace.Tracer
	// noop is true when tracer is the OpenTelemetry no-op tracer: a call
	// with no trace to continue then gets the same non-recording, invalid
	// span that the no-op tracer would make, without building options or
	// wrapping the context.
	noop   bool
	names  sync.Map     // tool name → "execute_tool <name>"
	cached atomic.Int64 // names stored, or tried to be, in names
}

// maxCachedNames bounds the span names kept: a registry's tools are few,
// but an MCP server may list millions of names.
const maxCachedNames = 1 << 10

// spanName returns "execute_tool <name>", built once for each of the first
// maxCachedNames tools, the name held to MaxValueBytes.
func (e *Extension) spanName(tool string) string {
	tool = clip(tool)
	if v, ok := e.names.Load(tool); ok {
		return v.(string)
	}
	name := "execute_tool " + tool
	if e.cached.Add(1) <= maxCachedNames {
		e.names.Store(tool, name)
	}
	return name
}

// Option configures the extension.
type Option func(*config)

type config struct{ tp trace.TracerProvider }

// WithTracerProvider sets where spans go (default otel.GetTracerProvider()
// at New). With the no-op provider of go.opentelemetry.io/otel/trace/noop,
// a call with no trace to continue (no span in its context, no W3C ids)
// passes through untouched, at no cost.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tp = tp }
}

// New returns the tracing extension.
func New(opts ...Option) *Extension {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	tr := c.tp.Tracer(ScopeName)
	_, isNoop := tr.(noop.Tracer)
	return &Extension{tracer: tr, noop: isNoop}
}

// Name implements extension.Extension.
func (e *Extension) Name() string { return "tracing" }

// Priority implements extension.Extension: extension.PriorityTracing.
func (e *Extension) Priority() int { return extension.PriorityTracing }

// Wrap implements extension.Extension.
func (e *Extension) Wrap(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		c := &req.Call
		// One look-up of the caller's span serves both questions below.
		if parent := trace.SpanFromContext(ctx); !validSpan(parent) {
			if sc, ok := remoteParent(c.TraceID, c.SpanID); ok {
				ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
			} else if e.noop && isNoopSpan(parent) {
				// No trace to continue and a no-op tracer: the span would
				// be invalid and non-recording (no ids to fill in, nothing
				// to record), and StartChild further in treats a context
				// without a span the same way. Skip the work.
				return next(ctx, req)
			}
		}
		sctx, span, ok := startSpan(ctx, e.tracer, e.spanName(c.Name),
			trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithAttributes(
				KeyOperation.String("execute_tool"),
				KeyTool.String(clip(c.Name)),
				KeyCallID.String(clip(c.ID)),
			))
		if !ok {
			return next(ctx, req)
		}
		sc, recording, ok := spanState(span)
		if !ok {
			end(span)
			return next(ctx, req)
		}
		ctx = sctx
		var w *approvalWatch
		returned := false
		defer func() {
			if !returned {
				// A backend run in this goroutine ended it
				// (runtime.Goexit): no result comes back, and the
				// executor answers the call with an internal error.
				if w != nil {
					w.end()
				}
				recordUnreturned(span, true)
			}
			end(span)
		}()
		if sc.IsValid() {
			if c.TraceID == "" {
				c.TraceID = sc.TraceID().String()
			}
			if c.SpanID == "" {
				c.SpanID = sc.SpanID().String()
			}
		}
		if !recording {
			res := next(ctx, req)
			returned = true
			return res
		}
		w = &approvalWatch{e: e, ctx: ctx, id: c.ID, tool: c.Name, prev: tool.EmitterFrom(ctx),
			secrets: secretsOf(req), args: c.Args}
		res := next(tool.WithEmitter(ctx, w.emit), req)
		returned = true
		w.end()
		record(span, req, res)
		return res
	}
}

// validSpan reports whether sp's span context is valid; a span of the
// program's own whose SpanContext panics counts as no span (see
// startSpan).
func validSpan(sp trace.Span) (valid bool) {
	defer func() {
		if recover() != nil {
			valid = false
		}
	}()
	return sp.SpanContext().IsValid()
}

// spanState is sp's span context and whether it records, ok false when
// asking panics: a span of a provider of the program's own (a wrapper
// that decorates another's spans). See startSpan.
func spanState(sp trace.Span) (sc trace.SpanContext, recording, ok bool) {
	defer func() {
		if !ok {
			_ = recover()
		}
	}()
	return sp.SpanContext(), sp.IsRecording(), true
}

// goexitText is the status of a span whose call did not return.
const goexitText = "the call's goroutine ended (runtime.Goexit) before the call returned"

// recordUnreturned sets the status of a span whose handler did not return
// (runtime.Goexit further in) as the executor answers the call: failed,
// tool.CodeInternal. call is true for the call span (toolbelt.status). A
// panic in the provider's code is recovered (see startSpan).
func recordUnreturned(span trace.Span, call bool) {
	defer func() { _ = recover() }()
	if call {
		span.SetAttributes(KeyStatus.String(string(tool.StatusFailed)))
	}
	span.SetAttributes(KeyErrorType.String(string(tool.CodeInternal)))
	span.SetStatus(codes.Error, goexitText)
}

// startSpan is tr.Start with a panic in the provider's code (a span
// processor's OnStart, a sampler) recovered: ok false, no span; so too
// when a tracer of the program's own returns a nil span. Tracing
// failing must not fail the call, nor change its answer: the chain would
// make the panic the call's answer (tool.CodePanic), after the tool ran
// when it came at the end, and a model told that a payment failed pays
// again.
func startSpan(ctx context.Context, tr trace.Tracer, name string, opts ...trace.SpanStartOption) (_ context.Context, _ trace.Span, ok bool) {
	defer func() {
		if !ok {
			_ = recover()
		}
	}()
	sctx, sp := tr.Start(ctx, name, opts...)
	if sp == nil || sctx == nil { // a tracer of the program's own that made none
		return ctx, nil, false
	}
	return sctx, sp, true
}

// end is sp.End with a panic in the provider's code (a span processor's
// OnEnd, an exporter run synchronously) recovered: see startSpan.
func end(sp trace.Span) {
	defer func() { _ = recover() }()
	sp.End()
}

// approvalWatch opens a child span of the call span in ctx when the call
// starts waiting for approval and ends it when the decision comes, then
// passes every event on to prev. Only the call's own approval events open
// and end it: the calls a tool makes of its own (a sub-agent's executor)
// send theirs out through the call's context too.
type approvalWatch struct {
	e        *Extension
	ctx      context.Context
	id, tool string
	prev     tool.Emitter
	// The call's secret paths and arguments as it arrived, for an
	// approver's error (redactedText).
	secrets []string
	args    json.RawMessage

	mu      sync.Mutex
	waiting trace.Span
	// ended is set when the call has ended: a goroutine that kept the
	// call's context and emits later opens no span, which nothing would
	// end.
	ended bool
}

func (w *approvalWatch) emit(ev tool.Event) {
	if (ev.CallID == "" || ev.CallID == w.id) && (ev.Tool == "" || ev.Tool == w.tool) {
		w.span(ev)
	}
	if w.prev != nil {
		w.prev(ev)
	}
}

// span opens or ends the approval span for ev, the call's own event. A
// panic in the provider's code is recovered (see startSpan): the event
// still goes on, and the approval extension that emitted it on with the
// call.
func (w *approvalWatch) span(ev tool.Event) {
	defer func() { _ = recover() }()
	switch ev.Kind {
	case tool.EventApprovalRequested:
		w.mu.Lock()
		ended := w.ended
		w.mu.Unlock()
		if ended {
			return
		}
		_, sp := w.e.tracer.Start(w.ctx, ApprovalSpanName)
		w.mu.Lock()
		prev := w.waiting
		if w.ended { // the call ended while sp started
			prev = sp
		} else {
			w.waiting = sp
		}
		w.mu.Unlock()
		if prev != nil {
			prev.End()
		}
	case tool.EventApprovalDecided:
		if sp := w.take(); sp != nil {
			defer sp.End()
			sp.SetAttributes(KeyApprovalDecision.String(clip(ev.Decision)), KeyApprovalDecidedBy.String(clip(ev.DecidedBy)))
			if ev.Error != "" {
				sp.SetStatus(codes.Error, redactedText(w.secrets, w.args, ev.Error))
			}
		}
	}
}

func (w *approvalWatch) take() trace.Span {
	w.mu.Lock()
	defer w.mu.Unlock()
	sp := w.waiting
	w.waiting = nil
	return sp
}

// end ends a wait the call returned from with no decision event (an
// approval extension that failed on the way), so that no span outlives its
// call. Later events open no span.
func (w *approvalWatch) end() {
	defer func() { _ = recover() }() // see startSpan
	w.mu.Lock()
	sp := w.waiting
	w.waiting, w.ended = nil, true
	w.mu.Unlock()
	if sp != nil {
		sp.SetStatus(codes.Error, "the call ended with no approval decision")
		sp.End()
	}
}

// noSpan is what trace.SpanFromContext returns for a context without a
// span.
var noSpan = trace.SpanFromContext(context.Background())

// isNoopSpan reports whether s is no span at all or a no-op span: the cases
// where the no-op tracer would start an equivalent no-op span.
func isNoopSpan(s trace.Span) bool {
	if s == noSpan { // s's type differs, or is noSpan's comparable type
		return true
	}
	_, ok := s.(noop.Span)
	return ok
}

func record(span trace.Span, req *extension.Request, res *tool.Result) {
	defer func() { _ = recover() }() // a span of the program's own that panics: see startSpan
	attempts := res.Attempts
	if attempts == 0 {
		attempts = req.Attempt
	}
	// A tool.Tool's own status is kept by the executor as it is: clipped
	// as every other value.
	attrs := []attribute.KeyValue{KeyStatus.String(clip(string(res.SettledStatus()))), KeyAttempts.Int(attempts)}
	if req.Call.Agent != "" {
		attrs = append(attrs, KeyAgent.String(clip(req.Call.Agent)))
	}
	if req.Call.Principal.ID != "" {
		attrs = append(attrs, KeyPrincipal.String(clip(req.Call.Principal.ID)))
	}
	if res.Error != nil {
		attrs = append(attrs, KeyErrorType.String(clip(string(res.Error.Code))))
		span.SetStatus(codes.Error, errorText(req, res.Error.Error()))
	} else {
		span.SetStatus(codes.Ok, "")
	}
	span.SetAttributes(attrs...)
}

// MaxValueBytes bounds each string the extension puts on a span (an
// attribute's value, a status description). The call id, the agent and the
// principal's id are whatever the call's callers sent, and an error's
// message may be as long as the executor's output cap: longer values keep
// their first bytes, whole characters only, and end in "…". Bytes that are
// not UTF-8 read as U+FFFD.
const MaxValueBytes = 4 << 10

// clip holds s to MaxValueBytes, in UTF-8. OTLP sends each string in a
// protobuf string field, which protobuf-go refuses to marshal when it is
// not UTF-8: the exporter would drop the whole batch, every other call's
// spans with it. A shell tool's error quotes its stderr byte for byte, and
// callers choose ids of any bytes.
func clip(s string) string {
	if len(s) <= MaxValueBytes && utf8.ValidString(s) {
		return s
	}
	const more = "…"
	cut := len(s) > MaxValueBytes
	if cut {
		s = textcut.Head(s, MaxValueBytes-len(more))
	}
	s = strings.ToValidUTF8(s, "\uFFFD") // may grow: a stray byte becomes 3
	if len(s) > MaxValueBytes || cut && len(s) > MaxValueBytes-len(more) {
		s, cut = textcut.Head(s, MaxValueBytes-len(more)), true
	}
	if cut {
		s += more
	}
	return s
}

// errorText is what a span says of a failed call's error (or an approver's):
// its text through the one redaction rule (internal/redact), with the
// values of the call's secret arguments masked where it echoes them, as
// the logging extension and the audit trail write it, held to
// MaxValueBytes. An error quotes what the tool was given or met (a
// connection string, a header, the password it was sent), and a tracing
// backend is read by more people than the logs. Only the head that can be
// kept is redacted, and a secret's length past it (redactSlack), so a long
// message costs what a short one does.
func errorText(req *extension.Request, text string) string {
	return redactedText(secretsOf(req), req.Call.Args, text)
}

// secretsOf returns the paths of the call's secret arguments
// (tool.Spec.Secrets).
func secretsOf(req *extension.Request) []string {
	if req.Spec == nil {
		return nil
	}
	return req.Spec.Secrets
}

// redactedText is errorText for a call whose secret paths and arguments
// are given.
func redactedText(secrets []string, args json.RawMessage, text string) string {
	cut := len(text) > MaxValueBytes+redactSlack
	if cut {
		text = textcut.Head(text, MaxValueBytes+redactSlack)
	}
	text = redact.Message(strings.ToValidUTF8(text, "\uFFFD"), secrets, args)
	if cut && len(text) <= MaxValueBytes {
		// Redaction shortened what was read: the span still says more
		// was there.
		const more = "…"
		return textcut.Head(text, MaxValueBytes-len(more)) + more
	}
	return clip(text)
}

// redactSlack is how far past MaxValueBytes errorText reads an error to
// redact it before the cut: longer than secrets are (a 4096-bit RSA
// private key in PEM is 3.2 KiB), so that one the cut falls in is masked
// whole.
const redactSlack = 4 << 10

// remoteParent builds a span context from W3C trace and span ids in hex.
func remoteParent(traceID, spanID string) (trace.SpanContext, bool) {
	if len(traceID) != 32 || len(spanID) != 16 {
		return trace.SpanContext{}, false
	}
	var tid trace.TraceID
	var sid trace.SpanID
	if _, err := hex.Decode(tid[:], []byte(traceID)); err != nil {
		return trace.SpanContext{}, false
	}
	if _, err := hex.Decode(sid[:], []byte(spanID)); err != nil {
		return trace.SpanContext{}, false
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, Remote: true})
	return sc, sc.IsValid()
}

// StartChild starts a span named name under the span in ctx, with the
// tracer provider that made that span, and returns the context carrying it.
// Without a span in ctx (tracing not installed, or a no-op provider with no
// trace to continue) it returns ctx unchanged and a no-op span, allocating
// nothing, so other extensions can call it unconditionally:
//
//	ctx, span := tracing.StartChild(ctx, "approval")
//	defer span.End()
//
// Build opts only when they are cheap, or set attributes afterwards under
// span.IsRecording(): the arguments are evaluated even when no span is made.
// A panic in the provider's code as the span starts (a span processor's
// OnStart, or the parent span's own methods) is recovered: ctx unchanged
// and a no-op span.
func StartChild(ctx context.Context, name string, opts ...trace.SpanStartOption) (cctx context.Context, span trace.Span) {
	ok := false
	defer func() {
		if !ok {
			_ = recover()
			cctx, span = ctx, noSpan
		}
	}()
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() && !parent.SpanContext().IsValid() {
		// No trace to join: any provider reached through this span is a
		// no-op, so a child would be a no-op span too.
		ok = true
		return ctx, parent
	}
	tr := parent.TracerProvider().Tracer(ScopeName)
	ok = true
	if c, sp, started := startSpan(ctx, tr, name, opts...); started {
		return c, sp
	}
	// The provider's code panicked: the caller goes on with no span.
	return ctx, noSpan
}

// Backend returns an extension that opens a "backend" child span around
// each run of the backend (PriorityBackend: inside retry). Add it next to
// the call span's extension:
//
//	tr := tracing.New()
//	executor.New(reg, executor.WithExtensions(tr, tr.Backend()))
func (e *Extension) Backend() extension.Extension {
	return extension.Func("tracing-backend", PriorityBackend, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			sctx, span, ok := startSpan(ctx, e.tracer, "backend",
				trace.WithAttributes(KeyTool.String(clip(req.Call.Name)), KeyAttempt.Int(req.Attempt)))
			if !ok {
				return next(ctx, req)
			}
			returned := false
			defer func() {
				if !returned { // runtime.Goexit in the backend: see Wrap
					recordUnreturned(span, false)
				}
				end(span)
			}()
			res := next(sctx, req)
			returned = true
			if res.Error != nil {
				recordBackendError(span, req, res.Error)
			}
			return res
		}
	})
}

// recordBackendError sets the backend span's error; a panic in the
// provider's code is recovered (see startSpan).
func recordBackendError(span trace.Span, req *extension.Request, err *tool.Error) {
	defer func() { _ = recover() }()
	span.SetAttributes(KeyErrorType.String(clip(string(err.Code))))
	span.SetStatus(codes.Error, errorText(req, err.Error()))
}
