package metrics_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/tool"
)

// BenchmarkExecute compares Execute with no extension against Execute with
// only the metrics extension recording in memory.
func BenchmarkExecute(b *testing.B) {
	call := tool.Call{ID: "c1", Name: "ok", Args: json.RawMessage(`{}`)}
	for _, bc := range []struct {
		name string
		exts []extension.Extension
	}{
		{"none", nil},
		{"metrics", []extension.Extension{metrics.New()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ex := newExecutor(b, bc.exts...)
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

// BenchmarkMemoryFinish measures recording alone, in parallel, to show it
// takes no lock.
func BenchmarkMemoryFinish(b *testing.B) {
	m := metrics.NewMemory()
	o := metrics.Observation{Tool: "ok", Status: tool.StatusSucceeded, Attempts: 1}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Start("ok")
			m.Finish(o)
		}
	})
}
