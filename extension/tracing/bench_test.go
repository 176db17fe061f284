package tracing_test

import (
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
	"github.com/toolbelt-go/toolbelt/tool"
)

// BenchmarkExecute compares Execute with no extension against Execute with
// only the tracing extension and a no-op tracer provider.
func BenchmarkExecute(b *testing.B) {
	call := tool.Call{ID: "c1", Name: "work", Args: json.RawMessage(`{}`)}
	for _, bc := range []struct {
		name string
		exts []extension.Extension
	}{
		{"none", nil},
		{"tracing-noop", []extension.Extension{tracing.New(tracing.WithTracerProvider(noop.NewTracerProvider()))}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ex := newExecutor(b, nil, bc.exts...)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ex.Execute(ctx, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNoop shows what tracing costs where there is nothing to trace:
// StartChild with no span in the context, and the extension's handler under
// a no-op provider with no trace to continue (both allocate nothing).
func BenchmarkNoop(b *testing.B) {
	bg := context.Background()
	b.Run("start_child_untraced", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, span := tracing.StartChild(bg, "approval")
			span.End()
		}
	})
	b.Run("handler_noop_provider", func(b *testing.B) {
		done := &tool.Result{}
		h := tracing.New(tracing.WithTracerProvider(noop.NewTracerProvider())).Wrap(func(context.Context, *extension.Request) *tool.Result { return done })
		b.ReportAllocs()
		for b.Loop() {
			req := extension.Request{Call: tool.Call{ID: "c1", Name: "work"}}
			h(bg, &req)
		}
	})
}
