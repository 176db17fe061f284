package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An extension may leave a run of the rest of the chain going after it
// returns (a hedge that answers with the first run and does not wait for
// the other). Such a run reaching its backend after the call returned
// queues for the call's keys anew (see extension.Handler), and gives them
// back when it returns: nothing keeps a key once every run has returned,
// and the next call on it does not wait for a finished call.
func TestReviewRunLeftGoingAfterTheCallFreesItsLock(t *testing.T) {
	res := []tool.Resource{{Key: "file:/x", Access: tool.Write}}
	w := tool.New("w", "The w test tool", func(context.Context, tool.Call) (*tool.Result, error) {
		return &tool.Result{}, nil
	}, tool.WithResources(func(json.RawMessage) []tool.Resource { return res }))
	start, straggled := make(chan struct{}), make(chan struct{})
	leaveOneGoing := extension.Func("leave-one-going", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			if req.Call.ID != "first" {
				return next(ctx, req)
			}
			r := *req
			go func() {
				defer close(straggled)
				<-start
				next(ctx, &r)
			}()
			return next(ctx, req)
		}
	})
	// The same resource, other bytes: the runs re-check their locks.
	respace := extension.Hooks{ExtName: "respace", Prio: extension.PriorityRetry, Before: func(_ context.Context, req *extension.Request) *tool.Result {
		req.Call.Args = json.RawMessage(`{ }`)
		return nil
	}}
	ex := executor.MustNew(scRegistry(t, w), executor.WithExtensions(leaveOneGoing, respace))

	_, err := ex.Execute(context.Background(), tool.Call{ID: "first", Name: "w", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.Zero(t, executor.LockedKeys(ex), "the key is free once the call returns")
	close(start)
	<-straggled
	assert.Zero(t, executor.LockedKeys(ex), "the run left going queued for the key again and kept it")

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = ex.Execute(ctx, tool.Call{ID: "next", Name: "w", Args: json.RawMessage(`{}`)})
	assert.False(t, errors.Is(err, tool.ErrConflict), "the next call on the key waited for a finished call: %v", err)
}

// A run of the chain under a context that does not carry the call (an
// extension that calls next with a context of its own) takes no locks (see
// runBackend): when its arguments were rewritten, it must not queue for
// keys that nobody would release.
func TestReviewRunWithoutTheCallsContextTakesNoLock(t *testing.T) {
	res := []tool.Resource{{Key: "file:/x", Access: tool.Write}}
	w := tool.New("w", "The w test tool", func(context.Context, tool.Call) (*tool.Result, error) {
		return &tool.Result{}, nil
	}, tool.WithResources(func(json.RawMessage) []tool.Resource { return res }))
	ownContext := extension.Func("own-context", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(_ context.Context, req *extension.Request) *tool.Result {
			return next(context.Background(), req)
		}
	})
	respace := extension.Hooks{ExtName: "respace", Prio: extension.PriorityRetry, Before: func(_ context.Context, req *extension.Request) *tool.Result {
		req.Call.Args = json.RawMessage(`{ }`)
		return nil
	}}
	ex := executor.MustNew(scRegistry(t, w), executor.WithExtensions(ownContext, respace),
		executor.WithMaxWait(time.Second))
	_, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "w", Args: json.RawMessage(`{}`)})
	require.NoError(t, err, "the run queued behind its own call")
	assert.Zero(t, executor.LockedKeys(ex), "the run took a lock nobody releases")
}
