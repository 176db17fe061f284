package audit_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/internal/benchcore"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// BenchmarkResultsInterleaved prices keeping results in the trail: an
// instant call (a short output and a line of text) through Execute with no
// trail, with a batched trail that keeps only each result's size
// (WithResults(0)), and with one that keeps the result (the default), in
// alternating blocks of one loop. x_size and x_result are the ratios to
// no trail; their difference is the cost of keeping (and redacting) the
// result on the caller's path.
func BenchmarkResultsInterleaved(b *testing.B) {
	newEx := func(exts ...extension.Extension) *executor.Executor {
		reg := registry.New()
		reg.MustRegister(resultTool(func() *tool.Result {
			return &tool.Result{Output: json.RawMessage(`{"rows":3,"table":"users"}`),
				Content: []tool.Content{tool.TextContent("3 rows from users; pin accepted")}}
		}))
		return executor.MustNew(reg, executor.WithExtensions(exts...))
	}
	trail := func(opts ...audit.Option) *audit.Trail {
		t, err := audit.Open(filepath.Join(b.TempDir(), "audit.jsonl"), append([]audit.Option{audit.WithKey(testKey), audit.WithSyncInterval(100 * time.Millisecond)}, opts...)...)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { t.Close() })
		return t
	}
	args := json.RawMessage(`{"pin":"739164"}`)
	run := func(ex *executor.Executor) func() {
		return func() {
			if _, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "report", Args: args}); err != nil {
				b.Fatal(err)
			}
		}
	}
	benchcore.Interleave(b, 32, []string{"none", "size", "result"},
		run(newEx()), run(newEx(trail(audit.WithResults(0)))), run(newEx(trail())))
}
