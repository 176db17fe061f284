package retry_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/retry"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A Go function that ignores its context, run WithDetach, outlives its
// deadline: the executor returns a timed-out result marked
// "backend_still_running" while the function goes on. A timeout is
// retryable and the tool idempotent, so the extension ran it again at once,
// beside the run still going: one call had three runs of its backend going
// together, under an executor limited to one backend at a time.
// Idempotent means running twice does what running once does, not that two
// runs may overlap.
func TestAttackS20RetryOverlapsARunStillGoing(t *testing.T) {
	release := make(chan struct{})
	ended := make(chan struct{}, 8)
	var running, most, runs atomic.Int64
	mirror := func(context.Context, struct{}) (string, error) {
		defer func() { ended <- struct{}{} }()
		runs.Add(1)
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		<-release // ignores ctx, as the functions WithDetach is for do
		return "synced", nil
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("sync_mirror", "Mirror the bucket", mirror,
		tool.WithAnnotations(tool.Annotations{Idempotent: true}), tool.WithTimeout(20*time.Millisecond)))
	ex := executor.MustNew(reg, executor.WithDetach(), executor.WithMaxConcurrency(1),
		executor.WithExtensions(retry.New(retry.Backoff(time.Millisecond, time.Millisecond))))

	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "sync_mirror", Args: json.RawMessage(`{}`)})
	close(release)
	for range runs.Load() { // each run started has counted itself before blocking
		<-ended
	}
	require.ErrorIs(t, err, tool.ErrTimeout)
	assert.Equal(t, int64(1), most.Load(), "runs of one call overlapped")
	assert.Equal(t, int64(1), runs.Load(), "a run still going was retried")
	assert.Equal(t, 1, res.Attempts)
	assert.Equal(t, true, res.Metadata["backend_still_running"])
	assert.Contains(t, res.Metadata[retry.MetaKey], "still running")
}

// A backend's Retry-After is the server's to choose: an HTTP tool takes up
// to 24 hours from the header, an MCP tool whatever the remote server puts
// in retry_after. The extension waited at least that long before the next
// attempt, bounded only by the caller's deadline: a caller without one
// (context.Background(), a job) was held for the whole wait, 99999999
// seconds here, twice. A wait longer than the longest backoff is not
// waited for: the failure comes back at once, its RetryAfter intact for
// the caller to act on.
func TestAttackS20HugeRetryAfterHoldsTheCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &flaky{fails: -1, err: func() error {
			return tool.NewError(tool.CodeUnavailable, "429 Too Many Requests").WithRetryAfter(99999999 * time.Second)
		}}
		ex := setup(t, f, retry.New(), tool.ReadOnly())
		start := time.Now()
		res, err := ex.Execute(context.Background(), call())
		require.ErrorIs(t, err, tool.ErrUnavailable)
		assert.Zero(t, time.Since(start), "the call waited for the server's Retry-After")
		assert.Equal(t, int64(1), f.runs.Load())
		assert.Equal(t, 99999999*time.Second, res.Error.RetryAfter, "the caller still learns how long the server asked for")
		assert.Contains(t, res.Metadata[retry.MetaKey], "longer than the longest backoff")

		// Up to the longest backoff, RetryAfter is still honoured.
		f = &flaky{fails: 1, err: func() error {
			return tool.NewError(tool.CodeUnavailable, "429").WithRetryAfter(retry.DefaultMax)
		}}
		ex = setup(t, f, retry.New(), tool.ReadOnly())
		start = time.Now()
		_, err = ex.Execute(context.Background(), call())
		require.NoError(t, err)
		assert.Equal(t, retry.DefaultMax, time.Since(start))
	})
}

// A caller that is gone by the time the first run fails gets no retry, and
// no event announcing one: the extension emitted "retried, attempt 2"
// before its wait found the context done, so a dashboard showed a retry
// of a call that had already ended.
func TestAttackS20NoRetryAnnouncedForACallerGone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx, got := events(ctx)
	f := &flaky{fails: -1, err: func() error {
		cancel() // the caller hangs up while the backend fails
		return unavailable()
	}}
	res, err := setup(t, f, retry.New(), tool.ReadOnly()).Execute(ctx, call())
	require.ErrorIs(t, err, tool.ErrUnavailable)
	assert.Equal(t, int64(1), f.runs.Load())
	assert.Empty(t, sleeps(got()), "a retry was announced for a call whose caller was gone")
	assert.Contains(t, res.Metadata[retry.MetaKey], "context canceled")
}

// The backoff's ceiling, Base·2^(n-1), was computed with a shift that
// overflows for many attempts: with a base of 2^30+1 ns and a cap of an
// hour, the 35th retry's ceiling wrapped round to 2^34 ns (17 s), so the
// backoff fell from an hour to seconds at the point the backend had failed
// longest. It stays at the cap.
func TestAttackS20BackoffOverflowShortensTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &flaky{fails: -1, err: unavailable}
		ex := setup(t, f, retry.New(retry.WithRandom(func() float64 { return 0.999999 }), retry.MaxAttempts(62),
			retry.Backoff(1<<30+1, time.Hour)), tool.ReadOnly())
		ctx, got := events(context.Background())
		_, _ = ex.Execute(ctx, call())
		s := sleeps(got())
		require.Len(t, s, 61)
		for i := 1; i < len(s); i++ {
			assert.GreaterOrEqual(t, s[i], s[i-1], "retry %d waited less than retry %d", i+1, i)
		}
		assert.Greater(t, s[len(s)-1], 59*time.Minute)
	})
}
