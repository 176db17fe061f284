package executor_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A detached run that outlived its call keeps the call's place until its
// backend returns: after end, the place's only user is that run. A run of
// the same call made after the call returned (a hedge's or a retry's run
// left going, extension.Handler), stepping aside for a person
// (extension.LockQueue.StepAside), must not give that place up: StepAside
// reads "one user" as "only the call itself, no run", which after end is
// the abandoned run. Then call b writes f beside it.
func TestAttackS22RLateStepAsideKeepsTheAbandonedRunsLock(t *testing.T) {
	// In a synctest bubble, synctest.Wait (settled) returns once every run has
	// ended and every other goroutine waits: nothing may be held then.
	synctest.Test(t, func(t *testing.T) {
		w := newS21rWriter()
		defer w.letGo()
		var ex *executor.Executor
		var b *tool.Result
		rerun := make(chan func() *tool.Result, 1)
		later := extension.Func("later", extension.PriorityDefault, func(next extension.Handler) extension.Handler {
			return func(ctx context.Context, req *extension.Request) *tool.Result {
				if req.Call.ID == "a" && req.Attempt == 1 {
					r := *req
					r.Call.Args = json.RawMessage(`{"path":"g","line":"late"}`)
					r.Attempt = 2
					rerun <- func() *tool.Result { return next(ctx, &r) }
				}
				return next(ctx, req)
			}
		})
		aside := extension.Func("aside", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
			return func(ctx context.Context, req *extension.Request) *tool.Result {
				if req.Call.ID == "a" && req.Attempt == 2 && req.Queue != nil {
					// A person decides; meanwhile b asks for f.
					req.Queue.StepAside(func() { b = s21rExec(ex, "b", "b") })
				}
				return next(ctx, req)
			}
		})
		ex = executor.MustNew(scRegistry(t, w.tool()), executor.WithDetach(),
			executor.WithExtensions(later, aside), executor.WithConflictPolicy(executor.Refuse))

		a := s21rExec(ex, "a", "slow")
		<-w.entered
		require.NotNil(t, a.Error)
		require.Equal(t, true, a.Metadata[tool.MetaStillRunning], "a's run outlives it: %v", a.Error)

		late := (<-rerun)() // after the call returned, while its run still writes f
		require.Nil(t, late.Error, "the late run wrote g")
		require.NotNil(t, b, "the late run stepped aside")
		if assert.NotNil(t, b.Error, "b wrote f beside the abandoned run of a") {
			assert.Equal(t, tool.CodeConflict, b.Error.Code, "%v", b.Error)
		}
		w.settled(t, ex)
	})
}
