package shell_test

import (
	"context"
	"testing"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// BenchmarkCommandTrueExecutor runs the argv tool "true" through the
// executor: lookup, validation, expansion, classification, sandbox run,
// result building.
func BenchmarkCommandTrueExecutor(b *testing.B) {
	sb := processEngine(b, b.TempDir())
	c, err := shell.NewCommand("true_cmd", "does nothing", sb, []string{"true"})
	if err != nil {
		b.Fatal(err)
	}
	reg := registry.New()
	reg.MustRegister(c)
	ex := executor.MustNew(reg)
	call := tool.Call{ID: "1", Name: "true_cmd"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := ex.Execute(ctx, call)
		if err != nil || !res.OK() {
			b.Fatal(err)
		}
	}
}

// BenchmarkSandboxRunTrue is the baseline: the same command with
// sandbox.Run directly.
func BenchmarkSandboxRunTrue(b *testing.B) {
	sb := processEngine(b, b.TempDir())
	ctx := context.Background()
	spec := sandbox.Spec{Argv: []string{"true"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sb.Run(ctx, spec); err != nil {
			b.Fatal(err)
		}
	}
}
