package executor_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A hedge may answer with its first run and leave another going
// (extension.Handler: such a run keeps the call's locks until its backend
// returns). A run that reached its backend only after the call had
// returned took no lock at all: it wrote the file while another call held
// it. Seen failing first: the late run of "a" ran inside b's write. It now
// queues for its resources, behind b, and lets them go when it returns.
func TestAttackS21RLateRunQueuesForItsLock(t *testing.T) {
	// In a synctest bubble, synctest.Wait returns once every run has returned
	// and every other goroutine waits: no lock may be left then.
	synctest.Test(t, func(t *testing.T) {
		w := &s14Writer{}
		start, late := make(chan struct{}), make(chan *tool.Result, 1)
		leave := extension.Func("leave-one-going", extension.PriorityDefault, func(next extension.Handler) extension.Handler {
			return func(ctx context.Context, req *extension.Request) *tool.Result {
				if req.Call.ID == "a" {
					r := *req
					go func() {
						<-start // a retry's backoff, a person deciding
						late <- next(ctx, &r)
					}()
				}
				return next(ctx, req)
			}
		})
		ex := executor.MustNew(scRegistry(t, w.tool()), executor.WithExtensions(leave))
		events, stop := ex.Subscribe(executor.EventFilter{Kinds: []tool.EventKind{tool.EventQueued}})
		defer stop()

		require.Nil(t, (<-s14Go(ex, "a", nil)).Error)
		holdB := make(chan struct{})
		b := s14Go(ex, "b", holdB)
		<-holdB // b writes f
		close(start)
		var lateRes *tool.Result
		select {
		case lateRes = <-late: // ran beside b
		case ev := <-events:
			require.Equal(t, "a", ev.CallID, "only the late run of a waits")
		}
		holdB <- struct{}{}
		require.Nil(t, (<-b).Error)
		if lateRes == nil {
			lateRes = <-late
		}
		require.Nil(t, lateRes.Error)
		assert.Zero(t, w.overlaps.Load(), "the late run of a wrote f while b held it")
		synctest.Wait()
		require.Zero(t, executor.LockedKeys(ex), "the late run let its lock go")
	})
}
