package audit_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func Example() {
	dir, _ := os.MkdirTemp("", "audit-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "audit.jsonl")

	tools := registry.New()
	tools.MustRegister(tool.Func("ping", "Ping", func(context.Context, struct{}) (string, error) { return "pong", nil }))

	trail, err := audit.Open(path) // fsync per record; audit.WithSyncInterval to defer fsyncs
	if err != nil {
		fmt.Println(err)
		return
	}
	ex := executor.MustNew(tools, executor.WithExtensions(trail))
	_, _ = ex.Execute(context.Background(), tool.Call{ID: "call-1", Name: "ping", Principal: tool.Principal{ID: "alice"}})
	_ = trail.Close()

	rep, err := audit.Verify(path)
	fmt.Println("records:", rep.Records, "intact:", rep.OK(), err)
	// Output: records: 2 intact: true <nil>
}

// A keyed, named trail with signed checkpoints: Verify with the key, the
// name and the last checkpoint catches edits, forged records, records cut
// from the end and another trail's file put in its place.
func Example_keyed() {
	dir, _ := os.MkdirTemp("", "audit-example")
	defer os.RemoveAll(dir)
	path, cpPath := filepath.Join(dir, "audit.jsonl"), filepath.Join(dir, "checkpoints.jsonl")
	key := []byte("an operator's secret of 32 bytes") // in practice: audit.WithKeyFile
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	sink, _ := os.Create(cpPath) // in practice: another machine, syslog, a log shipper

	name := audit.WithName("host-7/billing-agent") // one name per trail
	trail, err := audit.Open(path, audit.WithKey(key), name, audit.WithCheckpoints(priv, sink, 100))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "deploy", Principal: "alice"})
	_ = trail.Close() // writes the final checkpoint
	_ = sink.Close()

	cp, err := audit.LastCheckpoint(cpPath, pub)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := audit.Verify(path, audit.WithKey(key), name, audit.AgainstCheckpoint(cp))
	fmt.Println("records:", rep.Records, "keyed:", rep.Keyed, "checkpoint:", rep.Checkpoint, err)
	// Output: records: 1 keyed: true checkpoint: 1 <nil>
}
