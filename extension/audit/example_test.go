package audit_test

import (
	"context"
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
	ex := executor.New(tools, executor.WithExtensions(trail))
	_, _ = ex.Execute(context.Background(), tool.Call{ID: "call-1", Name: "ping", Principal: tool.Principal{ID: "alice"}})
	_ = trail.Close()

	rep, err := audit.Verify(path)
	fmt.Println("records:", rep.Records, "intact:", rep.OK(), err)
	// Output: records: 2 intact: true <nil>
}
