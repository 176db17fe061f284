package tracing_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type in struct {
	Fail bool `json:"fail,omitempty"`
}

// seen records the call as the backend saw it and the span in its context.
type seen struct {
	call tool.Call
	span trace.SpanContext
}

func newExecutor(t testing.TB, got *seen, exts ...extension.Extension) *executor.Executor {
	t.Helper()
	reg := registry.New()
	reg.MustRegister(tool.New("work", "Does work", func(ctx context.Context, c tool.Call) (*tool.Result, error) {
		if got != nil {
			got.call = c
			got.span = trace.SpanContextFromContext(ctx)
		}
		var a in
		_ = json.Unmarshal(c.Args, &a)
		if a.Fail {
			return nil, tool.NewError(tool.CodeUnavailable, "backend down")
		}
		return &tool.Result{Output: json.RawMessage(`{"ok":true}`)}, nil
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"fail":{"type":"boolean"}}}`))))
	return executor.MustNew(reg, executor.WithExtensions(exts...))
}

func newProvider(t *testing.T) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, rec
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestSpanPerCall(t *testing.T) {
	tp, rec := newProvider(t)
	var got seen
	ex := newExecutor(t, &got, tracing.New(tracing.WithTracerProvider(tp)))

	// The caller's span is the parent.
	ctx, parent := tp.Tracer("caller").Start(context.Background(), "agent-step")
	res, err := ex.Execute(ctx, tool.Call{ID: "call-1", Name: "work", Args: json.RawMessage(`{}`)})
	parent.End()
	require.NoError(t, err)

	spans := rec.Ended()
	require.Len(t, spans, 2)
	s := spans[0]
	assert.Equal(t, "execute_tool work", s.Name())
	assert.Equal(t, parent.SpanContext().SpanID(), s.Parent().SpanID(), "the call span is a child of the caller's span")
	assert.Equal(t, parent.SpanContext().TraceID(), s.SpanContext().TraceID())
	a := attrs(s)
	assert.Equal(t, "work", a[tracing.KeyTool].AsString())
	assert.Equal(t, "call-1", a[tracing.KeyCallID].AsString())
	assert.Equal(t, "succeeded", a[tracing.KeyStatus].AsString())
	assert.NotContains(t, a, tracing.KeyErrorType)
	assert.Equal(t, codes.Ok, s.Status().Code)

	// Call ids filled from the span, and visible to the backend.
	assert.Equal(t, s.SpanContext().TraceID().String(), got.call.TraceID)
	assert.Equal(t, s.SpanContext().SpanID().String(), got.call.SpanID)
	assert.Equal(t, s.SpanContext().SpanID(), got.span.SpanID(), "the backend runs under the call span")
	assert.True(t, res.OK())
}

func TestFailureSetsErrorStatus(t *testing.T) {
	tp, rec := newProvider(t)
	ex := newExecutor(t, nil, tracing.New(tracing.WithTracerProvider(tp)))
	_, err := ex.Execute(context.Background(), tool.Call{ID: "c2", Name: "work", Args: json.RawMessage(`{"fail":true}`)})
	require.Error(t, err)
	spans := rec.Ended()
	require.Len(t, spans, 1)
	s := spans[0]
	assert.False(t, s.Parent().IsValid(), "no caller span: a root span")
	assert.Equal(t, codes.Error, s.Status().Code)
	assert.Contains(t, s.Status().Description, "backend down")
	a := attrs(s)
	assert.Equal(t, "unavailable", a[tracing.KeyErrorType].AsString())
	assert.Equal(t, "failed", a[tracing.KeyStatus].AsString())
}

func TestExistingCallIDsKeptAndUsedAsRemoteParent(t *testing.T) {
	tp, rec := newProvider(t)
	var got seen
	ex := newExecutor(t, &got, tracing.New(tracing.WithTracerProvider(tp)))
	const tid, sid = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	_, err := ex.Execute(context.Background(), tool.Call{ID: "c3", Name: "work", Args: json.RawMessage(`{}`), TraceID: tid, SpanID: sid})
	require.NoError(t, err)
	s := rec.Ended()[0]
	assert.Equal(t, tid, s.SpanContext().TraceID().String(), "the span continues the caller's trace")
	assert.Equal(t, sid, s.Parent().SpanID().String())
	assert.True(t, s.Parent().IsRemote())
	assert.Equal(t, tid, got.call.TraceID, "ids the caller set are kept")
	assert.Equal(t, sid, got.call.SpanID)
}

func TestStartChildAndBackendSpans(t *testing.T) {
	tp, rec := newProvider(t)
	approval := extension.Func("approval", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			_, span := tracing.StartChild(ctx, "approval")
			span.End()
			return next(ctx, req)
		}
	})
	tr := tracing.New(tracing.WithTracerProvider(tp))
	var got seen
	ex := newExecutor(t, &got, tr, tr.Backend(), approval)
	_, err := ex.Execute(context.Background(), tool.Call{ID: "c4", Name: "work", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)

	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		byName[s.Name()] = s
	}
	require.Contains(t, byName, "execute_tool work")
	require.Contains(t, byName, "approval")
	require.Contains(t, byName, "backend")
	call := byName["execute_tool work"].SpanContext().SpanID()
	assert.Equal(t, call, byName["approval"].Parent().SpanID())
	assert.Equal(t, call, byName["backend"].Parent().SpanID())
	assert.Equal(t, byName["backend"].SpanContext().SpanID(), got.span.SpanID(), "the backend runs under the backend span")
	assert.EqualValues(t, 1, attrs(byName["backend"])[tracing.KeyAttempt].AsInt64())
}

func TestStartChildWithoutTracingIsNoop(t *testing.T) {
	bg := context.Background()
	ctx, span := tracing.StartChild(bg, "approval")
	assert.False(t, span.SpanContext().IsValid())
	assert.False(t, span.IsRecording())
	span.End()
	assert.Equal(t, bg, ctx, "no span to join: the context is returned as it was")

	// Under a no-op provider's span with no trace to continue: the same.
	nctx, _ := noop.NewTracerProvider().Tracer("t").Start(bg, "call")
	ctx, span = tracing.StartChild(nctx, "approval")
	assert.Equal(t, nctx, ctx)
	assert.False(t, span.IsRecording())
}

// onlyNamed samples the spans with one name and drops the others.
type onlyNamed string

func (n onlyNamed) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	d := sdktrace.Drop
	if p.Name == string(n) {
		d = sdktrace.RecordAndSample
	}
	return sdktrace.SamplingResult{Decision: d, Tracestate: trace.SpanContextFromContext(p.ParentContext).TraceState()}
}
func (n onlyNamed) Description() string { return "only " + string(n) }

func TestStartChildUnderAnUnsampledSpan(t *testing.T) {
	// A valid but unsampled parent is a trace to join: the child comes from
	// the parent's provider, whose sampler may still record it.
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithSampler(onlyNamed("approval")))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctx, parent := tp.Tracer("t").Start(context.Background(), "call")
	require.False(t, parent.IsRecording())
	require.True(t, parent.SpanContext().IsValid())
	_, span := tracing.StartChild(ctx, "approval")
	assert.True(t, span.IsRecording())
	span.End()
	parent.End()
	require.Len(t, rec.Ended(), 1)
	assert.Equal(t, parent.SpanContext().SpanID(), rec.Ended()[0].Parent().SpanID())
}

func TestNoopProviderLeavesIDsEmpty(t *testing.T) {
	var got seen
	ex := newExecutor(t, &got, tracing.New(tracing.WithTracerProvider(noop.NewTracerProvider())))
	_, err := ex.Execute(context.Background(), tool.Call{Name: "work", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.Empty(t, got.call.TraceID, "a no-op span has no ids to copy")
}

func TestPriority(t *testing.T) {
	tr := tracing.New()
	assert.Equal(t, extension.PriorityTracing, tr.Priority())
	assert.Equal(t, tracing.PriorityBackend, tr.Backend().Priority())
	assert.Greater(t, tracing.PriorityBackend, extension.PriorityRetry)
}

// ctxProbe is an extension further in that records the context it gets.
func ctxProbe(got *context.Context) extension.Extension {
	return extension.Func("probe", extension.PriorityRetry, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			*got = ctx
			return next(ctx, req)
		}
	})
}

func TestNoopProviderWithNoTraceShortCircuits(t *testing.T) {
	// Nothing to continue and a no-op provider: the span would be invalid
	// and non-recording, so the extension passes the context on untouched
	// (no options built, no context wrapped): BenchmarkNoop shows it costs
	// no allocation.
	var inner context.Context
	outer := context.WithValue(context.Background(), struct{ k int }{1}, "marker")
	tr := tracing.New(tracing.WithTracerProvider(noop.NewTracerProvider()))
	done := &tool.Result{}
	h := tr.Wrap(func(ctx context.Context, req *extension.Request) *tool.Result {
		inner = ctx
		return done
	})
	req := &extension.Request{Call: tool.Call{ID: "c1", Name: "work"}}
	h(outer, req)
	assert.Equal(t, outer, inner, "the context is passed on as it came")
	assert.Empty(t, req.Call.TraceID)
	assert.Empty(t, req.Call.SpanID)
	_, span := tracing.StartChild(inner, "approval")
	assert.False(t, span.IsRecording())
}

func TestNoopProviderStillContinuesATrace(t *testing.T) {
	// With ids to continue (the call's W3C ids, or a valid span in the
	// context) a no-op provider still carries them, as before.
	const tid, sid = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	var got seen
	var inner context.Context
	ex := newExecutor(t, &got, tracing.New(tracing.WithTracerProvider(noop.NewTracerProvider())), ctxProbe(&inner))
	_, err := ex.Execute(context.Background(), tool.Call{Name: "work", Args: json.RawMessage(`{}`), TraceID: tid, SpanID: sid})
	require.NoError(t, err)
	assert.Equal(t, tid, got.span.TraceID().String())
	assert.Equal(t, tid, got.call.TraceID)

	tp, _ := newProvider(t)
	pctx, parent := tp.Tracer("t").Start(context.Background(), "caller")
	defer parent.End()
	got = seen{}
	_, err = ex.Execute(pctx, tool.Call{Name: "work", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.Equal(t, parent.SpanContext().TraceID().String(), got.call.TraceID, "ids come from the caller's span")
	_, child := tracing.StartChild(inner, "approval")
	assert.False(t, child.IsRecording(), "under the no-op provider's span, children are no-ops")
}
