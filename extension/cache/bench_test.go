package cache_test

import (
	"context"
	"testing"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func BenchmarkExecute_Cache(b *testing.B) {
	be := &backend{}
	reg := registry.New()
	reg.MustRegister(tool.Func("search", "Search", be.fn, tool.ReadOnly()))
	c := call(`{"q":"go","limit":10,"tags":[1,2]}`)
	for _, bc := range []struct {
		name string
		ex   *executor.Executor
	}{
		{"none", executor.MustNew(reg)},
		{"cache_hit", executor.MustNew(reg, executor.WithExtensions(cache.New()))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				if _, err := bc.ex.Execute(ctx, c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
