package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

var benchArgs = json.RawMessage(`{"query":"sandbox escape","limit":10,"kind":"docs","near":{"city":"Lisbon","country":"PT"}}`)

// BenchmarkCore compares, in one run, the plain baseline (what a hand-rolled
// loop does: decode + validate + direct call + encode) with Execute alone
// and Execute behind five no-op extensions. Targets: no extensions ≤ 1.2×
// the baseline, five no-op extensions ≤ 1.3×.
func BenchmarkCore(b *testing.B) {
	ctx := context.Background()
	spec := tool.Func("search", "", search).Spec()
	v, err := schema.Compile(spec.InputSchema)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, err := schema.Decode(benchArgs)
			if err != nil {
				b.Fatal(err)
			}
			if err := v.Validate(m); err != nil {
				b.Fatal(err)
			}
			var in SearchArgs
			if err := json.Unmarshal(benchArgs, &in); err != nil {
				b.Fatal(err)
			}
			out, err := search(ctx, in)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(out); err != nil {
				b.Fatal(err)
			}
		}
	})
	run := func(b *testing.B, exts ...extension.Extension) {
		reg := registry.New()
		reg.MustRegister(tool.Func("search", "", search))
		ex := executor.New(reg, executor.WithExtensions(exts...))
		call := tool.Call{ID: "c1", Name: "search", Args: benchArgs}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ex.Execute(ctx, call); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("execute", func(b *testing.B) { run(b) })
	b.Run("execute_5_noop_extensions", func(b *testing.B) {
		var exts []extension.Extension
		for i := 0; i < 5; i++ {
			exts = append(exts, extension.Func(fmt.Sprintf("noop%d", i), i*100, func(next extension.Handler) extension.Handler {
				return func(ctx context.Context, req *extension.Request) *tool.Result { return next(ctx, req) }
			}))
		}
		run(b, exts...)
	})
}
