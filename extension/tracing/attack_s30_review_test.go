package tracing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool.Tool's own Result.Status is kept by the executor as it is
// (tool.Result.SettledStatus keeps any status that is set), and the call
// span's toolbelt.status carried it as it was: an MCP server's or a
// program's backend's status of stray bytes made the batch unexportable
// (OTLP's protobuf string fields), one of a mebibyte a mebibyte on the
// span. Metrics read it as metrics.Other; the span keeps it, UTF-8 and
// held to MaxValueBytes.
func TestAttackS30ReviewToolsOwnStatusIsUTF8AndBounded(t *testing.T) {
	status := tool.Status("done-\xff" + strings.Repeat("x", 1<<20))
	reg := registry.New()
	reg.MustRegister(tool.New("own", "Sets its own status", func(context.Context, tool.Call) (*tool.Result, error) {
		return &tool.Result{Status: status, Content: []tool.Content{tool.TextContent("done")}}, nil
	}))
	tp, rec := newProvider(t)
	ex := executor.MustNew(reg, executor.WithExtensions(tracing.New(tracing.WithTracerProvider(tp))))
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "own", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	require.Equal(t, status, res.Status, "precondition: the executor keeps the tool's status")
	spans := rec.Ended()
	require.Len(t, spans, 1)
	v := attrs(spans[0])[tracing.KeyStatus].AsString()
	assert.True(t, utf8.ValidString(v), "toolbelt.status is not UTF-8: %.40q", v)
	assert.LessOrEqual(t, len(v), tracing.MaxValueBytes, "toolbelt.status")
	assert.True(t, strings.HasPrefix(v, "done-\uFFFD"), "toolbelt.status %.40q", v)
}

// A backend run in the caller's goroutine that ends it (runtime.Goexit:
// t.FailNow in a tool under test) unwinds through the chain with no
// result. The executor answers the call with an internal error; the call
// span ended (deferred) with no status and no toolbelt.status, so a trace
// showed it as a call that went well.
func TestAttackS30ReviewGoexitFurtherInSetsTheSpansStatus(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("quit", "Ends its goroutine", func(context.Context, struct{}) (string, error) {
		runtime.Goexit()
		return "", nil
	}))
	tp, rec := newProvider(t)
	tr := tracing.New(tracing.WithTracerProvider(tp))
	ex := executor.MustNew(reg, executor.WithExtensions(tr, tr.Backend()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "quit", Args: json.RawMessage(`{}`)})
	}()
	<-done
	spans := rec.Ended()
	require.Len(t, spans, 2, "the call span and the backend span end, once each")
	for _, s := range spans {
		assert.Equal(t, codes.Error, s.Status().Code, "span %q", s.Name())
		assert.Contains(t, s.Status().Description, "runtime.Goexit", "span %q", s.Name())
		assert.Equal(t, string(tool.CodeInternal), attrs(s)[tracing.KeyErrorType].AsString(), "span %q", s.Name())
	}
	for _, s := range spans {
		if s.Name() != "backend" {
			assert.Equal(t, string(tool.StatusFailed), attrs(s)[tracing.KeyStatus].AsString())
		}
	}
}

// The same with the call waiting for approval when the backend ends the
// goroutine (an approval extension that asked, then ran it): the approval
// span ends too, once, with status Error.
func TestAttackS30ReviewGoexitFurtherInEndsTheApprovalSpan(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("quit", "Ends its goroutine", func(context.Context, struct{}) (string, error) {
		runtime.Goexit()
		return "", nil
	}))
	asks := extension.Func(extension.NameApproval, extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalRequested, CallID: req.Call.ID, Tool: req.Call.Name})
			return next(ctx, req)
		}
	})
	tp, rec := newProvider(t)
	ex := executor.MustNew(reg, executor.WithExtensions(tracing.New(tracing.WithTracerProvider(tp)), asks))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "quit", Args: json.RawMessage(`{}`)})
	}()
	<-done
	require.Equal(t, 2, len(rec.Started()), "the call span and the approval span")
	require.Equal(t, 2, len(rec.Ended()), "each ends once")
	for _, s := range rec.Ended() {
		assert.Equal(t, codes.Error, s.Status().Code, "span %q", s.Name())
	}
}

// An approval_requested event that comes after the call returned (an
// extension's or a tool's goroutine that kept the call's context) opened
// an approval span that nothing ends: it is never exported, and it holds
// what the provider keeps for open spans. Once its call has ended, a
// call's approval events open no span.
func TestAttackS30ReviewLateApprovalEventOpensNoSpan(t *testing.T) {
	var kept atomic.Pointer[context.Context]
	keeps := extension.Func(extension.NameApproval, extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			kept.Store(&ctx)
			return next(ctx, req)
		}
	})
	tp, rec := newProvider(t)
	ex := newExecutor(t, nil, tracing.New(tracing.WithTracerProvider(tp)), keeps)
	_, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "work", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	ctx := *kept.Load()
	for range 100 {
		tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalRequested, CallID: "c1", Tool: "work"})
	}
	assert.Equal(t, 1, len(rec.Started()), "the call span only: no span starts after the call ended")
	assert.Equal(t, len(rec.Started()), len(rec.Ended()), "every span started ends")
}

// Approval events that race the call's end (a goroutine of the approval
// extension's that goes on emitting while the call returns): whichever
// wins, every approval span started is ended once.
func TestAttackS30ReviewApprovalEventsRacingTheEndLeaveNoSpanOpen(t *testing.T) {
	var wg sync.WaitGroup
	racing := extension.Func(extension.NameApproval, extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			started := make(chan struct{})
			wg.Add(1)
			go func() {
				defer wg.Done()
				close(started)
				for range 200 {
					tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalRequested, CallID: req.Call.ID, Tool: req.Call.Name})
				}
			}()
			<-started
			return next(ctx, req)
		}
	})
	tp, rec := newProvider(t)
	ex := newExecutor(t, nil, tracing.New(tracing.WithTracerProvider(tp)), racing)
	for i := range 20 {
		_, err := ex.Execute(context.Background(), tool.Call{ID: fmt.Sprint("c", i), Name: "work", Args: json.RawMessage(`{}`)})
		require.NoError(t, err)
	}
	wg.Wait()
	assert.Equal(t, len(rec.Started()), len(rec.Ended()), "every span started ends")
}

// nilTracer is a tracer of the program's own that makes no span: Start
// returns a nil trace.Span (a wrapper that gives up).
type nilTracer struct{ embedded.Tracer }

func (nilTracer) Start(ctx context.Context, _ string, _ ...trace.SpanStartOption) (context.Context, trace.Span) {
	return ctx, nil
}

type nilProvider struct{ embedded.TracerProvider }

func (nilProvider) Tracer(string, ...trace.TracerOption) trace.Tracer { return nilTracer{} }

// parentOf is the caller's span, whose TracerProvider is nilProvider.
type parentOf struct{ trace.Span }

func (parentOf) TracerProvider() trace.TracerProvider { return nilProvider{} }

// StartChild returned the nil span such a tracer made, and its caller's
// span.End() (as StartChild's godoc has it) panicked: the call was
// answered code panic. The extension's own spans from it are no spans.
func TestAttackS30ReviewNilSpanFromTheProviderIsNoSpan(t *testing.T) {
	tp, _ := newProvider(t)
	var ran atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.New("pay", "Pays", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
		ran.Add(1)
		_, sp := tracing.StartChild(ctx, "child")
		sp.End()
		return &tool.Result{Content: []tool.Content{tool.TextContent("paid")}}, nil
	}))
	ctx, sp := tp.Tracer("program").Start(context.Background(), "request")
	defer sp.End()
	ctx = trace.ContextWithSpan(ctx, parentOf{Span: sp})
	for _, tr := range []*tracing.Extension{tracing.New(tracing.WithTracerProvider(nilProvider{})), tracing.New(tracing.WithTracerProvider(tp))} {
		ex := executor.MustNew(reg, executor.WithExtensions(tr, tr.Backend()))
		res, err := ex.Execute(ctx, tool.Call{ID: "c1", Name: "pay", Args: json.RawMessage(`{}`)})
		require.NotNil(t, res)
		assert.NoError(t, err)
	}
	assert.Equal(t, int64(2), ran.Load(), "the tool ran each time")
}

// bombTracer is a tracer of the program's own (a wrapper of another
// provider's, sampling or decorating) whose spans panic in IsRecording
// and SpanContext: the provider's code, which the extension asks on the
// call's path outside its recover.
type bombTracer struct {
	embedded.Tracer
	real trace.Tracer
}

func (b bombTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	ctx, sp := b.real.Start(ctx, name, opts...)
	bs := bombSpan{Span: sp}
	return trace.ContextWithSpan(ctx, bs), bs
}

type bombSpan struct{ trace.Span }

func (bombSpan) IsRecording() bool              { panic("span: boom") }
func (bombSpan) SpanContext() trace.SpanContext { panic("span: boom") }
func (b bombSpan) TracerProvider() trace.TracerProvider {
	return bombProvider{real: b.Span.TracerProvider()}
}

type bombProvider struct {
	embedded.TracerProvider
	real trace.TracerProvider
}

func (b bombProvider) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	return bombTracer{real: b.real.Tracer(name, opts...)}
}

// A span whose IsRecording or SpanContext panics made the call's answer
// code panic, before the backend ran: tracing changed whether the call ran.
func TestAttackS30ReviewSpanMethodPanicIsNotTheCalls(t *testing.T) {
	tp, _ := newProvider(t)
	var ran atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.New("pay", "Pays", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
		ran.Add(1)
		_, sp := tracing.StartChild(ctx, "child")
		sp.End()
		return &tool.Result{Content: []tool.Content{tool.TextContent("paid")}}, nil
	}))
	// The extension's provider makes such spans.
	tr := tracing.New(tracing.WithTracerProvider(bombProvider{real: tp}))
	ex := executor.MustNew(reg, executor.WithExtensions(tr, tr.Backend()))
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "pay", Args: json.RawMessage(`{}`)})
	require.NotNil(t, res)
	assert.NoError(t, err)
	assert.Equal(t, int64(1), ran.Load(), "the tool ran once")

	// The caller's context carries one (the program's own span), under
	// an SDK provider: the call span and StartChild meet it as parent.
	ctx, parent := bombProvider{real: tp}.Tracer("program").Start(context.Background(), "request")
	defer func() { parent.(bombSpan).Span.End() }()
	tr = tracing.New(tracing.WithTracerProvider(tp))
	ex = executor.MustNew(reg, executor.WithExtensions(tr, tr.Backend()))
	res, err = ex.Execute(ctx, tool.Call{ID: "c2", Name: "pay", Args: json.RawMessage(`{}`)})
	require.NotNil(t, res)
	assert.NoError(t, err)
	assert.Equal(t, int64(2), ran.Load(), "the tool ran again")
}
