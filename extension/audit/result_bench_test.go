package audit_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// BenchmarkOutcomeWithResult is the caller's share of an instant call
// whose outcome keeps a result (a short output and a line of text), with
// the trail batched (WithSyncInterval), where it is smallest.
func BenchmarkOutcomeWithResult(b *testing.B) {
	trail, err := audit.Open(filepath.Join(b.TempDir(), "audit.jsonl"), audit.WithKey(testKey), audit.WithSyncInterval(100*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer trail.Close()
	reg := registry.New()
	reg.MustRegister(resultTool(func() *tool.Result {
		return &tool.Result{Output: json.RawMessage(`{"rows":3,"table":"users"}`),
			Content: []tool.Content{tool.TextContent("3 rows from users; pin accepted")}}
	}))
	ex := executor.MustNew(reg, executor.WithExtensions(trail))
	args := json.RawMessage(`{"pin":"739164"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "report", Args: args}); err != nil {
			b.Fatal(err)
		}
	}
}
