package retry_test

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/retry"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// sleeps are the backoffs the retried events report, which are the
// sleeps the extension took (synctest's clock makes them instant and exact).
func sleeps(evs []tool.Event) []time.Duration {
	var out []time.Duration
	for _, e := range evs {
		if e.Kind == tool.EventRetried {
			out = append(out, e.Latency)
		}
	}
	return out
}

func half() float64 { return 0.5 }

// flaky fails with err for the first fails runs, then succeeds.
type flaky struct {
	runs  atomic.Int64
	fails int64
	err   func() error
}

func (f *flaky) fn(context.Context, struct{}) (string, error) {
	n := f.runs.Add(1)
	if f.fails < 0 || n <= f.fails {
		return "", f.err()
	}
	return "ok", nil
}

func unavailable() error { return tool.NewError(tool.CodeUnavailable, "backend is down") }

func setup(t testing.TB, f *flaky, r *retry.Retry, opts ...tool.Option) *executor.Executor {
	reg := registry.New()
	reg.MustRegister(tool.Func("t", "test", f.fn, opts...))
	return executor.MustNew(reg, executor.WithExtensions(r))
}

func call() tool.Call { return tool.Call{ID: "c1", Name: "t", Args: json.RawMessage(`{}`)} }

func events(ctx context.Context) (context.Context, func() []tool.Event) {
	var mu sync.Mutex
	var evs []tool.Event
	ctx = tool.WithEmitter(ctx, func(e tool.Event) {
		mu.Lock()
		evs = append(evs, e)
		mu.Unlock()
	})
	return ctx, func() []tool.Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]tool.Event(nil), evs...)
	}
}

func TestRetriesUntilSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &flaky{fails: 2, err: unavailable}
		ex := setup(t, f, retry.New(retry.WithRandom(half), retry.Backoff(100*time.Millisecond, time.Second)), tool.ReadOnly())
		ctx, got := events(context.Background())
		start := time.Now()
		res, err := ex.Execute(ctx, call())
		require.NoError(t, err)
		assert.Equal(t, "ok", res.Text())
		assert.Equal(t, 3, res.Attempts)
		assert.Equal(t, int64(3), f.runs.Load())
		// Full jitter with random=0.5: half of 100ms, then half of 200ms.
		evs := got()
		assert.Equal(t, []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}, sleeps(evs))
		assert.Equal(t, 150*time.Millisecond, time.Since(start), "it slept exactly that long")
		require.Len(t, evs, 2)
		for i, e := range evs {
			assert.Equal(t, tool.EventRetried, e.Kind)
			assert.Equal(t, i+2, e.Attempt, "the attempt about to run")
			assert.Equal(t, "c1", e.CallID)
			assert.Contains(t, e.Reason, "unavailable: backend is down")
		}
	})
}

func TestGivesUpAtMaxAttempts(t *testing.T) {
	cases := []struct {
		name string
		opts []retry.Option
		want int
	}{
		{"default 3", nil, 3},
		{"5", []retry.Option{retry.MaxAttempts(5)}, 5},
		{"1 means no retry", []retry.Option{retry.MaxAttempts(1)}, 1},
		{"0 clamps to 1", []retry.Option{retry.MaxAttempts(0)}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &flaky{fails: -1, err: unavailable}
				ex := setup(t, f, retry.New(tc.opts...), tool.ReadOnly())
				res, err := ex.Execute(context.Background(), call())
				require.ErrorIs(t, err, tool.ErrUnavailable)
				assert.Equal(t, tc.want, res.Attempts)
				assert.Equal(t, int64(tc.want), f.runs.Load())
				if tc.want > 1 {
					assert.Contains(t, res.Metadata[retry.MetaKey], "gave up after")
				}
			})
		})
	}
}

func TestOnlyRetryableErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &flaky{fails: -1, err: func() error { return tool.NewError(tool.CodeNonZeroExit, "exit 1") }}
		ex := setup(t, f, retry.New(), tool.ReadOnly())
		res, err := ex.Execute(context.Background(), call())
		require.Error(t, err)
		assert.Equal(t, 1, res.Attempts)
		assert.Equal(t, int64(1), f.runs.Load())

		// A backend may mark a normally final code retryable, and vice versa.
		f = &flaky{fails: 1, err: func() error { return &tool.Error{Code: tool.CodeInternal, Message: "flake", Retryable: true} }}
		ex = setup(t, f, retry.New(), tool.ReadOnly())
		_, err = ex.Execute(context.Background(), call())
		require.NoError(t, err)
		assert.Equal(t, int64(2), f.runs.Load())
	})
}

func TestIdempotency(t *testing.T) {
	cases := []struct {
		name    string
		opts    []tool.Option
		retryOp []retry.Option
		runs    int64
	}{
		{"not idempotent: once", []tool.Option{tool.WithRisk(tool.RiskMedium)}, nil, 1},
		{"idempotent annotation", []tool.Option{tool.WithAnnotations(tool.Annotations{Idempotent: true})}, nil, 3},
		{"read-only annotation", []tool.Option{tool.WithAnnotations(tool.Annotations{ReadOnly: true})}, nil, 3},
		{"retry-safe tag", []tool.Option{tool.WithTags(retry.TagSafe)}, nil, 3},
		{"SafeTools option", nil, []retry.Option{retry.SafeTools("t")}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &flaky{fails: -1, err: unavailable}
				ex := setup(t, f, retry.New(tc.retryOp...), tc.opts...)
				res, err := ex.Execute(context.Background(), call())
				require.ErrorIs(t, err, tool.ErrUnavailable)
				assert.Equal(t, tc.runs, f.runs.Load())
				if tc.runs == 1 {
					assert.Contains(t, res.Metadata[retry.MetaKey], `not retried: tool "t" is not idempotent`)
				}
			})
		})
	}
}

func TestHonoursRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &flaky{fails: 1, err: func() error { return tool.NewError(tool.CodeUnavailable, "429").WithRetryAfter(2 * time.Second) }}
		ex := setup(t, f, retry.New(), tool.ReadOnly())
		ectx, got := events(context.Background())
		_, err := ex.Execute(ectx, call())
		require.NoError(t, err)
		assert.Equal(t, []time.Duration{2 * time.Second}, sleeps(got()))

		// A RetryAfter past the deadline: no sleep, the result comes back at once.
		f = &flaky{fails: 1, err: func() error { return tool.NewError(tool.CodeUnavailable, "429").WithRetryAfter(time.Hour) }}
		ex = setup(t, f, retry.New(), tool.ReadOnly())
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(time.Minute))
		defer cancel()
		start := time.Now()
		res, err := ex.Execute(ctx, call())
		require.ErrorIs(t, err, tool.ErrUnavailable)
		assert.Zero(t, time.Since(start), "no sleep")
		assert.Equal(t, 1, res.Attempts)
		assert.Contains(t, res.Metadata[retry.MetaKey], "after the call's deadline")
	})
}

// Deterministic storm: a deadline, a generous attempt limit; the deadline
// bounds the attempts and no sleep crosses it.
func TestDeadlineBoundsAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &flaky{fails: -1, err: unavailable}
		ex := setup(t, f, retry.New(retry.WithRandom(half), retry.MaxAttempts(1000),
			retry.Backoff(100*time.Millisecond, 400*time.Millisecond)), tool.ReadOnly())
		start := time.Now()
		deadline := start.Add(time.Second)
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		defer cancel()
		res, err := ex.Execute(ctx, call())
		require.ErrorIs(t, err, tool.ErrUnavailable)
		// Sleeps 50, 100, 200, 200, 200, 200 (= 950ms); the next 200 would cross.
		assert.Equal(t, 7, res.Attempts)
		assert.Equal(t, int64(7), f.runs.Load())
		assert.True(t, time.Now().Before(deadline), "never slept past the deadline")
		assert.Equal(t, 950*time.Millisecond, time.Since(start))
	})
}

// Wall-clock storm: a tool that always fails retryably, a short deadline and
// a huge attempt limit. The call returns the failure, having made a bounded
// number of attempts, all accounted for.
func TestRetryStorm(t *testing.T) {
	f := &flaky{fails: -1, err: unavailable}
	ex := setup(t, f, retry.New(retry.MaxAttempts(1_000_000), retry.Backoff(time.Millisecond, 5*time.Millisecond)), tool.ReadOnly())
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	res, err := ex.Execute(ctx, call())
	require.NotNil(t, res)
	require.Error(t, err)
	assert.Equal(t, tool.CodeUnavailable, res.Error.Code, "the last failure is returned, not a cancellation")
	assert.Greater(t, res.Attempts, 1)
	assert.Less(t, res.Attempts, 1_000_000, "the deadline, not the limit, stopped the storm")
	assert.Equal(t, int64(res.Attempts), f.runs.Load())
	assert.Contains(t, res.Metadata[retry.MetaKey], "deadline")
}

func TestCancelledDuringBackoff(t *testing.T) {
	f := &flaky{fails: -1, err: unavailable}
	ex := setup(t, f, retry.New(retry.Backoff(time.Hour, time.Hour), retry.WithRandom(func() float64 { return 0.99 })), tool.ReadOnly())
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	res, err := ex.Execute(ctx, call())
	require.ErrorIs(t, err, tool.ErrUnavailable)
	assert.Equal(t, 1, res.Attempts)
	assert.Contains(t, res.Metadata[retry.MetaKey], "context canceled")
}

func TestBackoffGrowsAndCaps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &flaky{fails: -1, err: unavailable}
		ex := setup(t, f, retry.New(retry.WithRandom(func() float64 { return 0.999999 }), retry.MaxAttempts(70),
			retry.Backoff(time.Millisecond, 50*time.Millisecond)), tool.ReadOnly())
		ctx, got := events(context.Background())
		_, _ = ex.Execute(ctx, call())
		s := sleeps(got())
		require.Len(t, s, 69)
		for i := 1; i < len(s); i++ {
			assert.GreaterOrEqual(t, s[i], s[i-1])
			assert.Less(t, s[i], 50*time.Millisecond, "capped")
		}
		assert.Less(t, s[0], time.Millisecond)
	})
}

func TestPriority(t *testing.T) {
	r := retry.New()
	assert.Equal(t, extension.PriorityRetry, r.Priority())
	assert.Equal(t, retry.Name, r.Name())
}
