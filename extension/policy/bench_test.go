package policy_test

import (
	"context"
	"testing"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

func BenchmarkExecute_Policy(b *testing.B) {
	f := newFixture(b)
	p := load(b)
	c := tool.Call{ID: "c", Name: "write_file", Args: []byte(`{"path":"/w/agent/a/b.txt","content":"hello"}`)}
	for _, bc := range []struct {
		name string
		ex   *executor.Executor
	}{
		{"none", executor.New(f.reg)},
		{"policy", executor.New(f.reg, executor.WithExtensions(p))},
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
