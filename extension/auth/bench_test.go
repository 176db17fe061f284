package auth_test

import (
	"context"
	"testing"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/auth"
)

func BenchmarkExecute_Auth(b *testing.B) {
	f := newFixture(b)
	a := auth.New(auth.WithRules(
		auth.Rule{Name: "admins", Role: "admin", Categories: []string{"admin"}},
		auth.Rule{Name: "readers", Role: "reader", Tools: []string{"read_*", "web_*"}},
	))
	c := call("read_file", bob)
	for _, bc := range []struct {
		name string
		ex   *executor.Executor
	}{
		{"none", executor.MustNew(f.reg)},
		{"auth", executor.MustNew(f.reg, executor.WithExtensions(a))},
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
