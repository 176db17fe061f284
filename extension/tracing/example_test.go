package tracing_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func Example() {
	tools := registry.New()
	tools.MustRegister(tool.Func("ping", "Ping", func(context.Context, struct{}) (string, error) { return "pong", nil }))

	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	tr := tracing.New(tracing.WithTracerProvider(tp))
	ex := executor.MustNew(tools, executor.WithExtensions(tr, tr.Backend()))
	_, _ = ex.Execute(context.Background(), tool.Call{ID: "call-1", Name: "ping"})

	for _, s := range rec.Ended() {
		fmt.Println(s.Name(), s.Status().Code)
	}
	// Output:
	// backend Unset
	// execute_tool ping Ok
}
