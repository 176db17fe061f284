package ratelimit_test

import (
	"context"
	"testing"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
)

func BenchmarkExecute_RateLimit(b *testing.B) {
	f := newFixture(b)
	// Every scope in use, with rates high enough never to refuse.
	l := ratelimit.New(ratelimit.EachTool("1000000000/s"), ratelimit.PerPrincipal("1000000000/s"), ratelimit.PerToolPrincipal("1000000000/s"))
	c := call("fetch", "bob")
	for _, bc := range []struct {
		name string
		ex   *executor.Executor
	}{
		{"none", executor.MustNew(f.reg)},
		{"ratelimit", executor.MustNew(f.reg, executor.WithExtensions(l))},
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
