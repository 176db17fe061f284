package retry_test

import (
	"context"
	"testing"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/retry"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func BenchmarkExecute_Retry(b *testing.B) {
	reg := registry.New()
	reg.MustRegister(tool.Func("t", "test", func(context.Context, struct{}) (string, error) { return "ok", nil }, tool.ReadOnly()))
	for _, bc := range []struct {
		name string
		ex   *executor.Executor
	}{
		{"none", executor.MustNew(reg)},
		{"retry", executor.MustNew(reg, executor.WithExtensions(retry.New()))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				if _, err := bc.ex.Execute(ctx, call()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
