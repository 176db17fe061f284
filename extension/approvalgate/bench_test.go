package approvalgate_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/tool"
)

// BenchmarkAutoApproved compares a call that the auto policy approves
// without asking (a low-risk tool) run through the approval extension and
// its guard, with the same call on an executor without them.
//
// baseline and approval time each executor on its own; interleaved runs
// them alternately in one loop and reports approval/baseline, the ratio
// that drifting load on a shared machine cannot skew. chain-* time the
// extension chain alone around a no-op backend: the extension's own cost.
func BenchmarkAutoApproved(b *testing.B) {
	call := tool.Call{ID: "c1", Name: "calc", Args: json.RawMessage(`{"a":1,"b":2}`), Session: "s1"}
	never := approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		b.Fatal("the approver must not be asked")
		return approval.Decision{}, nil
	})
	var r ran
	plain := executor.MustNew(setup(b, &r))
	ext := approvalgate.New(never)
	with := executor.MustNew(setup(b, &r), executor.WithExtensions(ext, ext.Guard()))
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		ex   *executor.Executor
	}{{"baseline", plain}, {"approval", with}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.ex.Execute(ctx, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("interleaved", func(b *testing.B) {
		b.ReportAllocs()
		var base, appr time.Duration
		for b.Loop() {
			t0 := time.Now()
			if _, err := plain.Execute(ctx, call); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if _, err := with.Execute(ctx, call); err != nil {
				b.Fatal(err)
			}
			appr += time.Since(t1)
			base += t1.Sub(t0)
		}
		b.ReportMetric(float64(base)/float64(b.N), "baseline-ns/call")
		b.ReportMetric(float64(appr)/float64(b.N), "approval-ns/call")
		b.ReportMetric(float64(appr)/float64(base), "ratio")
	})

	reg := setup(b, &r)
	entry, _ := reg.Lookup("calc")
	final := func(context.Context, *extension.Request) *tool.Result { return &tool.Result{} }
	for _, bc := range []struct {
		name string
		h    extension.Handler
	}{
		{"chain-baseline", extension.Chain(final)},
		{"chain-approval", extension.Chain(final, ext, ext.Guard())},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := &extension.Request{Call: call, Spec: &entry.Spec, Tool: entry.Tool, Attempt: 1, Validated: call.Args}
				if res := bc.h(ctx, req); res.Error != nil {
					b.Fatal(res.Error)
				}
			}
		})
	}
}
