package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

func BenchmarkExecute_Policy(b *testing.B) {
	f := newFixture(b)
	p := load(b)
	c := tool.Call{ID: "c", Name: "write_file", Args: []byte(`{"path":"/w/agent/a/b.txt","content":"hello"}`)}
	for _, bc := range []struct {
		name string
		ex   *executor.Executor
	}{
		{"none", executor.MustNew(f.reg)},
		{"policy", executor.MustNew(f.reg, executor.WithExtensions(p))},
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

// BenchmarkExecute_PolicyWorkspace reads a file with the built-in read_file
// under a forbidden_paths rule: the policy resolves the path in the tool's
// workspace (sandbox.Workspace.Resolve) before matching, against the same
// call without the policy.
func BenchmarkExecute_PolicyWorkspace(b *testing.B) {
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**"]}`))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "docs", "a"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "a", "b.txt"), []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithHide(p.Hide))
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	reg := registry.New()
	reg.MustRegister(builtin.Files(ws)...)
	c := tool.Call{ID: "c", Name: "read_file", Args: []byte(`{"path":"./docs/a/b.txt"}`)}
	for _, bc := range []struct {
		name string
		ex   *executor.Executor
	}{
		{"none", executor.MustNew(reg)},
		{"policy", executor.MustNew(reg, executor.WithExtensions(p))},
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
