package audit_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/tool"
)

// BenchmarkExecute compares Execute with no extension against Execute with
// only the audit extension, batched to a temp file, and (for reference)
// with the default fsync per record.
func BenchmarkExecute(b *testing.B) {
	args, _ := json.Marshal(deployIn{Env: "prod", Token: secretValue})
	call := tool.Call{ID: "c1", Name: "deploy", Args: args, Principal: tool.Principal{ID: "alice"}}
	for _, bc := range []struct {
		name string
		opts []audit.Option
		none bool
	}{
		{name: "none", none: true},
		{name: "audit-batched", opts: []audit.Option{audit.WithBatch(256, 100*time.Millisecond)}},
		{name: "audit-fsync-each"},
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
			f := newFixture(b, exts...)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.ex.Execute(ctx, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
