package executor_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/retry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Under WithDetach, a call that held no lock and no slot gave its backend
// no time to stop at the deadline: a backend that honours its context,
// but had not yet sent its answer when the call looked, was reported as
// one that "ignores its context" and is "still running in the background"
// (metadata backend_still_running), and the retry extension, which never
// overlaps a run still going, stopped after the first attempt. Seen
// failing first (1 attempt of 3, in the first round).
func TestAttackS23DetachedBackendThatStopsIsNotReportedStillRunning(t *testing.T) {
	polite := tool.New("polite", "Waits for its context", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, tool.WithTimeout(5*time.Millisecond), tool.WithTags(retry.TagSafe))
	ex := newExec(t, []executor.Option{executor.WithDetach(),
		executor.WithExtensions(retry.New(retry.MaxAttempts(3), retry.Backoff(time.Millisecond, time.Millisecond)))}, polite)
	for i := range 20 {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "polite", Args: json.RawMessage(`{}`)})
		require.ErrorIs(t, err, tool.ErrTimeout)
		require.Nil(t, res.Metadata[tool.MetaStillRunning], "round %d: %v", i, res.Error)
		require.Contains(t, res.Error.Message, "was stopped", "round %d", i)
		require.Equal(t, 3, res.Attempts, "round %d: %v", i, res.Metadata[retry.MetaKey])
	}
}
