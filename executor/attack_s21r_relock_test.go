package executor_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A detached run that outlived its call keeps its lock until it returns
// (a3a926a). But when the call ran again with arguments rewritten to
// another file (an extension that falls back to another path when a run
// is still running), relock gave up the call's place, the one the
// abandoned run was writing under, to queue for the new file: the next
// writer of the first file ran beside the abandoned run. Seen failing
// first: call "b" wrote f while the abandoned run of "a" still wrote it.
func TestAttackS21RRelockKeepsTheAbandonedRunsLock(t *testing.T) {
	// In a synctest bubble, synctest.Wait returns once every run has returned
	// and every other goroutine waits: no lock may be left then.
	synctest.Test(t, func(t *testing.T) {
		var inF, most overlap
		unblock := make(chan struct{})
		letGo := sync.OnceFunc(func() { close(unblock) })
		defer letGo() // also when a check fails first
		w := slowWriter(&inF, &most, unblock)
		// Runs are made one at a time, as extension.Handler allows rewriting.
		fallback := extension.Func("fallback", extension.PriorityRetry, func(next extension.Handler) extension.Handler {
			return func(ctx context.Context, req *extension.Request) *tool.Result {
				r := *req
				res := next(ctx, &r)
				if still, _ := res.Metadata[tool.MetaStillRunning].(bool); !still {
					return res
				}
				r = *req
				r.Call.Args = json.RawMessage(`{"path":"g","line":"fallback"}`)
				return next(ctx, &r)
			}
		})
		ex := executor.MustNew(scRegistry(t, w), executor.WithDetach(), executor.WithExtensions(fallback),
			executor.WithConflictPolicy(executor.Refuse))
		call := func(id string, a scPathArgs) *tool.Result {
			res, _ := ex.Execute(context.Background(), scCall(id, "w", a))
			return res
		}

		a := call("a", scPathArgs{Path: "f", Line: "slow"})
		require.Nil(t, a.Error, "the fallback run wrote g: %v", a.Error)
		require.Equal(t, int32(1), inF.Load(), "the first run of a still writes f")

		b := call("b", scPathArgs{Path: "f", Line: "b"})
		require.NotNil(t, b.Error, "b wrote f beside the abandoned run of a")
		assert.Equal(t, tool.CodeConflict, b.Error.Code, "%v", b.Error)
		assert.Contains(t, b.Error.Message, `call "a"`)
		assert.Equal(t, int32(1), most.Load(), "never two writers of f at once")

		letGo()
		synctest.Wait()
		c := call("c", scPathArgs{Path: "f"})
		require.True(t, c.OK(), "f comes back when the abandoned run returns: %v", c.Err())
		synctest.Wait()
		require.Zero(t, executor.LockedKeys(ex), "no lock is left once every run has returned")
		assert.Equal(t, int32(1), most.Load())
	})
}
