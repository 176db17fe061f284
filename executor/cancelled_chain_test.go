package executor_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call whose context ended in the extension chain (an approval wait the
// caller gave up on, a policy mode change that revokes it) never starts
// its backend. With no lock or slot to wait for, nothing looked at the
// context again, and a tool that ignores its context ran: a write the
// operator had just forbidden by switching to lockdown.
func TestACallCancelledInTheChainNeverStartsItsBackend(t *testing.T) {
	var ran atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.Func("write", "Writes, ignoring its context", func(context.Context, struct{}) (string, error) {
		ran.Add(1)
		return "written", nil
	}))
	revoke := extension.Func("revoke", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			ctx, cancel := context.WithCancel(ctx)
			cancel() // what a mode change does to a call waiting for its approval
			return next(ctx, req)
		}
	})
	ex := executor.MustNew(reg, executor.WithExtensions(revoke))
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "write"})
	require.Error(t, err)
	assert.Zero(t, ran.Load(), "the backend ran after its call was cancelled")
	assert.Equal(t, tool.StatusCancelled, res.Status)
}

// refusalCounter is an extension.Observer that counts the refusals it hears of.
type refusalCounter struct {
	extension.Extension
	names []string
}

func (r *refusalCounter) Refused(_ context.Context, call *tool.Call, _ *tool.Spec, _ *tool.Result) {
	r.names = append(r.names, call.Name)
}

// ReportRefused tells the observers of a call refused outside the executor
// (an agent's undeclared tool), and an observer's panic loses nothing.
func TestReportRefusedTellsTheObservers(t *testing.T) {
	obs := &refusalCounter{Extension: extension.Func("observer", 0, func(next extension.Handler) extension.Handler { return next })}
	panicky := &panickyObserver{Extension: extension.Func("panicky", 1, func(next extension.Handler) extension.Handler { return next })}
	ex := executor.MustNew(registry.New(), executor.WithExtensions(obs, panicky))
	call := tool.Call{ID: "c", Name: "rm_rf"}
	ex.ReportRefused(context.Background(), &call, tool.Fail(&call, tool.CodeNotFound, "not declared"))
	assert.Equal(t, []string{"rm_rf"}, obs.names)
}

type panickyObserver struct{ extension.Extension }

func (panickyObserver) Refused(context.Context, *tool.Call, *tool.Spec, *tool.Result) { panic("boom") }
