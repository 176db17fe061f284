package executor_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call waiting for a concurrency slot says so (a queued event naming the
// limit), comes back cancelled when its caller cancels, and gives up with
// concurrency_limit at WithMaxWait; either way it leaves no slot or agent
// limiter behind.
func TestReviewLimitWaitCancelledOrGivenUp(t *testing.T) {
	probe, release := &scProbe{}, make(chan struct{})
	ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release)),
		executor.WithMaxConcurrency(1), executor.WithAgentConcurrency(1), executor.WithMaxWait(100*time.Millisecond))
	events, stop := ex.Subscribe(executor.EventFilter{})
	defer stop()
	held := scHold(t, ex, probe, "holder", "")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ex.Execute(ctx, scCall("cancelled", "gate", scPathArgs{}))
		done <- err
	}()
	queued := false
	for !queued {
		select {
		case ev := <-events:
			queued = ev.CallID == "cancelled" && ev.Kind == tool.EventQueued && strings.HasPrefix(ev.Reason, "limit: ")
		case <-time.After(5 * time.Second):
			t.Fatal("no queued event for the waiting call")
		}
	}
	cancel()
	err := <-done
	assert.True(t, errors.Is(err, tool.ErrCancelled), "the caller's cancellation, not a limit: %v", err)

	res, err := ex.Execute(context.Background(), scCall("late", "gate", scPathArgs{}))
	assert.True(t, errors.Is(err, tool.ErrConcurrencyLimit), "%v", err)
	assert.Contains(t, res.Error.Message, "gave up at the deadline")

	close(release)
	require.True(t, (<-held).OK())
	_, busy := executor.AgentLimiters(ex)
	assert.Zero(t, busy, "no call holds or waits for an agent slot")
	_, err = ex.Execute(context.Background(), scCall("after", "gate", scPathArgs{}))
	require.NoError(t, err, "the slots are free")
}
