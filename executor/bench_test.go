package executor_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/benchcore"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

var benchArgs = benchcore.Args

// BenchmarkCore compares, in one run, the plain baseline (what a hand-rolled
// loop does: decode + validate + direct call + encode) with Execute alone
// and Execute behind five no-op extensions. Target (issue 17): Execute at
// most 1.25× the baseline.
func BenchmarkCore(b *testing.B) {
	ctx := context.Background()
	baseline := coreBaseline(b)
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			baseline(ctx)
		}
	})
	b.Run("execute", func(b *testing.B) { runExecute(b, newBenchExec()) })
	b.Run("execute_5_noop_extensions", func(b *testing.B) { runExecute(b, newBenchExec(noops(5)...)) })
}

// BenchmarkCoreInterleaved measures the same three paths in alternating
// blocks inside one loop, so that a shared machine's drifting speed hits
// them alike, and reports the ratios to the baseline as metrics
// (x_execute, x_5_noop).
func BenchmarkCoreInterleaved(b *testing.B) {
	ctx := context.Background()
	baseline := coreBaseline(b)
	plain, noop5 := newBenchExec(), newBenchExec(noops(5)...)
	call := tool.Call{ID: "c1", Name: "search", Args: benchArgs}
	execute := func(ex *executor.Executor) func() {
		return func() {
			if _, err := ex.Execute(ctx, call); err != nil {
				b.Fatal(err)
			}
		}
	}
	benchcore.Interleave(b, 32, []string{"baseline", "execute", "5_noop"},
		func() { baseline(ctx) }, execute(plain), execute(noop5))
}

func noops(n int) []extension.Extension {
	var exts []extension.Extension
	for i := 0; i < n; i++ {
		exts = append(exts, extension.Func(fmt.Sprintf("noop%d", i), i*100, func(next extension.Handler) extension.Handler {
			return func(ctx context.Context, req *extension.Request) *tool.Result { return next(ctx, req) }
		}))
	}
	return exts
}

func newBenchExec(exts ...extension.Extension) *executor.Executor {
	reg := registry.New()
	reg.MustRegister(tool.Func("search", "The search test tool", search))
	return executor.MustNew(reg, executor.WithExtensions(exts...))
}

func runExecute(b *testing.B, ex *executor.Executor) {
	ctx := context.Background()
	call := tool.Call{ID: "c1", Name: "search", Args: benchArgs}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ex.Execute(ctx, call); err != nil {
			b.Fatal(err)
		}
	}
}

// coreBaseline is what a hand-rolled loop does with the same tool and
// arguments (see internal/benchcore).
func coreBaseline(b *testing.B) func(context.Context) {
	run, err := benchcore.NewBaseline()
	if err != nil {
		b.Fatal(err)
	}
	return func(ctx context.Context) {
		if err := run(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
