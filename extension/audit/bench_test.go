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
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// BenchmarkExecute1msTool is the realistic call: a tool that does 1 ms of
// work, through Execute with no extension, with the keyed audit trail
// fsyncing every record (the default), and with WithSyncInterval. Run
// with -cpu 1,8 to see group commit share fsyncs between concurrent calls.
func BenchmarkExecute1msTool(b *testing.B) {
	reg := registry.New()
	reg.MustRegister(tool.Func("work", "Works for 1 ms", func(_ context.Context, in deployIn) (string, error) {
		time.Sleep(time.Millisecond) // the tool's 1 ms of work the benchmark is about, not a wait
		return "done " + in.Env, nil
	}, tool.WithRisk(tool.RiskLow)))
	args, _ := json.Marshal(deployIn{Env: "prod", Token: secretValue})
	for _, bc := range []struct {
		name string
		opts []audit.Option
		none bool
	}{
		{name: "none", none: true},
		{name: "audit-fsync-each", opts: []audit.Option{audit.WithKey(testKey)}},
		{name: "audit-sync-100ms", opts: []audit.Option{audit.WithKey(testKey), audit.WithSyncInterval(100 * time.Millisecond)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var exts []extension.Extension
			if !bc.none {
				trail, err := audit.Open(filepath.Join(b.TempDir(), "audit.jsonl"), bc.opts...)
				if err != nil {
					b.Fatal(err)
				}
				defer trail.Close()
				exts = append(exts, trail)
			}
			ex := executor.MustNew(reg, executor.WithExtensions(exts...))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					call := tool.Call{ID: "c1", Name: "work", Args: args, Principal: tool.Principal{ID: "alice"}}
					if _, err := ex.Execute(context.Background(), call); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
