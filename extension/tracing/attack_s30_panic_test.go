package tracing_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// panicky is a span processor of the program's that panics when a span
// starts or ends: an exporter run synchronously (sdktrace.WithSyncer) that
// panics, a bug.
type panicky struct {
	onStart string // the name of the spans it panics on as they start, "*" all
	onEnd   bool
}

func (p panicky) OnStart(_ context.Context, s sdktrace.ReadWriteSpan) {
	if p.onStart == "*" || p.onStart == s.Name() {
		panic("exporter: boom")
	}
}

func (p panicky) OnEnd(sdktrace.ReadOnlySpan) {
	if p.onEnd {
		panic("exporter: boom")
	}
}
func (panicky) Shutdown(context.Context) error   { return nil }
func (panicky) ForceFlush(context.Context) error { return nil }

// A span processor's panic is the program's tracing failing, not the call:
// the extension let it through, the chain made it the call's answer (code
// panic), and a payment that went through was reported to the model as
// failed (it pays again), or one was never made. Tracing must not change
// what a call does or answers.
func TestAttackS30SpanProcessorPanicIsNotTheCalls(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    panicky
	}{
		{"on end", panicky{onEnd: true}},
		{"on start", panicky{onStart: "*"}},
		{"approval span on start", panicky{onStart: tracing.ApprovalSpanName}},
		{"backend span on start", panicky{onStart: "backend"}},
		{"a child span on start", panicky{onStart: "child"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var paid atomic.Int64
			reg := registry.New()
			reg.MustRegister(tool.Func("pay", "Pays an invoice", func(context.Context, struct{}) (string, error) {
				paid.Add(1)
				return "paid", nil
			}))
			// An approval extension inside, whose events open and end the
			// approval span.
			asks := extension.Func(extension.NameApproval, extension.PriorityApproval, func(next extension.Handler) extension.Handler {
				return func(ctx context.Context, req *extension.Request) *tool.Result {
					tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalRequested, CallID: req.Call.ID, Tool: req.Call.Name})
					tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalDecided, CallID: req.Call.ID, Tool: req.Call.Name, Decision: "approve", DecidedBy: "ops"})
					if tc.p.onStart == "child" {
						// Ending it is this extension's: StartChild guards
						// the start only.
						ctx, span := tracing.StartChild(ctx, "child")
						defer span.End()
						return next(ctx, req)
					}
					return next(ctx, req)
				}
			})
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tc.p))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			tr := tracing.New(tracing.WithTracerProvider(tp))
			ex := executor.MustNew(reg, executor.WithExtensions(tr, tr.Backend(), asks))
			res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "pay", Args: json.RawMessage(`{}`)})
			require.NotNil(t, res)
			assert.NoError(t, err, "the payment went through; the call was answered as failed")
			assert.True(t, res.OK())
			assert.Equal(t, int64(1), paid.Load(), "the tool ran once")
		})
	}
}

// A tracer provider shut down (the program stopping) makes non-recording
// spans: calls go on, answered as before (it did so before session 30's
// changes too).
func TestShutDownProviderStillAnswers(t *testing.T) {
	tp, rec := newProvider(t)
	require.NoError(t, tp.Shutdown(context.Background()))
	tr := tracing.New(tracing.WithTracerProvider(tp))
	ex := newExecutor(t, nil, tr, tr.Backend())
	for range 3 {
		res, err := ex.Execute(context.Background(), tool.Call{Name: "work", Args: json.RawMessage(`{}`)})
		require.NoError(t, err)
		assert.True(t, res.OK())
	}
	assert.Empty(t, rec.Ended())
}
