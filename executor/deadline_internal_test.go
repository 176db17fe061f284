package executor

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/internal/race"
)

// Each scenario runs against lazyDeadline and context.WithDeadline: they
// must agree on Err, Done and Cause.
func TestLazyDeadlineBehavesAsWithDeadline(t *testing.T) {
	type ctor func(context.Context, time.Time) (context.Context, func())
	impls := map[string]ctor{
		"lazy": func(p context.Context, d time.Time) (context.Context, func()) {
			c := withLazyDeadline(p, d)
			return c, c.cancel
		},
		"std": func(p context.Context, d time.Time) (context.Context, func()) { return context.WithDeadline(p, d) },
	}
	doneNow := func(ctx context.Context) bool {
		select {
		case <-ctx.Done():
			return true
		default:
			return false
		}
	}
	cause := errors.New("the agent stopped")
	for name, mk := range impls {
		t.Run(name, func(t *testing.T) {
			t.Run("live", func(t *testing.T) {
				ctx, cancel := mk(context.Background(), time.Now().Add(time.Hour))
				defer cancel()
				assert.NoError(t, ctx.Err())
				d, ok := ctx.Deadline()
				assert.True(t, ok)
				assert.WithinDuration(t, time.Now().Add(time.Hour), d, time.Minute)
			})
			t.Run("deadline passes unobserved", func(t *testing.T) {
				// On the bubble's clock: the sleep passes the deadline exactly.
				synctest.Test(t, func(t *testing.T) {
					ctx, cancel := mk(context.Background(), time.Now().Add(time.Millisecond))
					defer cancel()
					time.Sleep(5 * time.Millisecond)
					assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
					assert.True(t, doneNow(ctx), "Done is closed once the deadline has passed")
					assert.ErrorIs(t, context.Cause(ctx), context.DeadlineExceeded)
				})
			})
			t.Run("deadline passes while waiting", func(t *testing.T) {
				ctx, cancel := mk(context.Background(), time.Now().Add(5*time.Millisecond))
				defer cancel()
				select {
				case <-ctx.Done():
				case <-time.After(5 * time.Second):
					t.Fatal("Done never closed")
				}
				assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
			})
			t.Run("cancel before anybody looked", func(t *testing.T) {
				ctx, cancel := mk(context.Background(), time.Now().Add(time.Hour))
				cancel()
				assert.ErrorIs(t, ctx.Err(), context.Canceled)
				assert.True(t, doneNow(ctx))
				assert.ErrorIs(t, context.Cause(ctx), context.Canceled)
				cancel() // twice is fine
				assert.ErrorIs(t, ctx.Err(), context.Canceled)
			})
			t.Run("cancel after the deadline passed keeps DeadlineExceeded", func(t *testing.T) {
				// On the bubble's clock: the sleep passes the deadline exactly.
				synctest.Test(t, func(t *testing.T) {
					ctx, cancel := mk(context.Background(), time.Now().Add(time.Millisecond))
					time.Sleep(5 * time.Millisecond)
					cancel()
					assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
					assert.True(t, doneNow(ctx))
				})
			})
			t.Run("parent cancelled with a cause", func(t *testing.T) {
				parent, stop := context.WithCancelCause(context.Background())
				ctx, cancel := mk(parent, time.Now().Add(time.Hour))
				defer cancel()
				stop(cause)
				assert.ErrorIs(t, ctx.Err(), context.Canceled)
				assert.ErrorIs(t, context.Cause(ctx), cause)
				assert.True(t, doneNow(ctx))
			})
			t.Run("parent cancelled while waiting", func(t *testing.T) {
				parent, stop := context.WithCancel(context.Background())
				ctx, cancel := mk(parent, time.Now().Add(time.Hour))
				defer cancel()
				ch := ctx.Done()
				stop()
				<-ch
				assert.ErrorIs(t, ctx.Err(), context.Canceled)
			})
			t.Run("earlier parent deadline wins", func(t *testing.T) {
				parent, stop := context.WithDeadline(context.Background(), time.Now().Add(time.Minute))
				defer stop()
				ctx, cancel := mk(parent, time.Now().Add(time.Hour))
				defer cancel()
				pd, _ := parent.Deadline()
				d, _ := ctx.Deadline()
				assert.Equal(t, pd, d)
			})
			t.Run("values pass through", func(t *testing.T) {
				type key struct{}
				ctx, cancel := mk(context.WithValue(context.Background(), key{}, "v"), time.Now().Add(time.Hour))
				defer cancel()
				assert.Equal(t, "v", ctx.Value(key{}))
			})
			t.Run("children are cancelled with it", func(t *testing.T) {
				ctx, cancel := mk(context.Background(), time.Now().Add(time.Hour))
				child, stopChild := context.WithCancel(ctx)
				defer stopChild()
				var fired sync.WaitGroup
				fired.Add(1)
				context.AfterFunc(ctx, fired.Done)
				cancel()
				select {
				case <-child.Done():
				case <-time.After(5 * time.Second):
					t.Fatal("the child was not cancelled")
				}
				assert.ErrorIs(t, child.Err(), context.Canceled)
				fired.Wait()
			})
		})
	}
}

// Children of an armed lazyDeadline hang off the real context: the
// context package needs no goroutine per child to propagate cancellation.
func TestLazyDeadlineChildrenNeedNoGoroutine(t *testing.T) {
	ctx := withLazyDeadline(context.Background(), time.Now().Add(time.Hour))
	defer ctx.cancel()
	before := runtime.NumGoroutine()
	var stops []func()
	for range 100 {
		_, stop := context.WithCancel(ctx)
		stops = append(stops, stop)
	}
	assert.Less(t, runtime.NumGoroutine(), before+10, "one goroutine per child means the cancelCtx was not found")
	for _, s := range stops {
		s()
	}
}

// A backend that never looks at Done costs no timer: nothing is armed.
func TestLazyDeadlineArmsOnlyOnDone(t *testing.T) {
	ctx := withLazyDeadline(context.Background(), time.Now().Add(time.Hour))
	cancel := ctx.cancel
	require.NoError(t, ctx.Err())
	_ = ctx.Value("x")
	_, _ = ctx.Deadline()
	assert.Nil(t, ctx.armed.Load(), "Err, Value and Deadline do not arm")
	_ = ctx.Done()
	assert.NotNil(t, ctx.armed.Load())
	cancel()
	assert.ErrorIs(t, ctx.Err(), context.Canceled)
}

func TestLazyDeadlineConcurrentUse(t *testing.T) {
	for range 50 {
		ctx := withLazyDeadline(context.Background(), time.Now().Add(time.Millisecond))
		cancel := ctx.cancel
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch i {
				case 0:
					<-ctx.Done()
				case 1:
					for ctx.Err() == nil {
						runtime.Gosched()
					}
				case 2:
					cancel()
				case 3:
					_, stop := context.WithCancel(ctx)
					stop()
				}
			}()
		}
		wg.Wait()
		assert.Error(t, ctx.Err())
		select {
		case <-ctx.Done():
		default:
			t.Fatal("Done open after Err")
		}
	}
}

// A backend that ignores Done costs one allocation for its deadline, where
// context.WithDeadline costs four (and a runtime timer).
func TestLazyDeadlineAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	parent := context.Background()
	n := testing.AllocsPerRun(100, func() {
		ctx := withLazyDeadline(parent, time.Now().Add(time.Minute))
		_ = ctx.Err()
		ctx.cancel()
	})
	assert.LessOrEqual(t, n, 1.0)
}

// cancelAt fixes Err from the time it is given, not from a fresh reading:
// DeadlineExceeded when that time is at or past the deadline, Canceled
// before it, the parent's error when the parent is done; Done, armed
// afterwards, agrees.
func TestLazyDeadlineCancelAt(t *testing.T) {
	base := time.Now()
	deadline := base.Add(time.Hour)
	done, stop := context.WithCancel(context.Background())
	stop()
	tests := []struct {
		name   string
		parent context.Context
		at     time.Time
		want   error
	}{
		{"before the deadline", context.Background(), base.Add(time.Minute), context.Canceled},
		{"at the deadline", context.Background(), deadline, context.DeadlineExceeded},
		{"past the deadline", context.Background(), deadline.Add(time.Second), context.DeadlineExceeded},
		{"parent done", done, deadline.Add(time.Second), context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := withLazyDeadline(tt.parent, deadline)
			c.cancelAt(tt.at)
			assert.Equal(t, tt.want, c.Err())
			c.cancel() // a second cancel changes nothing
			assert.Equal(t, tt.want, c.Err())
			select {
			case <-c.Done():
			default:
				t.Fatal("Done is open after cancelAt")
			}
			assert.Equal(t, tt.want, c.Err(), "after arming")
		})
	}
}

// now derives the time from a recent reading and reads the clock again
// for an old or absent one; either way it lies between two fresh readings.
func TestNowDerivesFromRecentReadings(t *testing.T) {
	for name, since := range map[string]time.Time{
		"absent": {},
		"recent": time.Now(),
		"old":    time.Now().Add(-2 * time.Second),
	} {
		t.Run(name, func(t *testing.T) {
			before := time.Now()
			got := now(since)
			after := time.Now()
			assert.False(t, got.Before(before), "%v is before %v", got, before)
			assert.False(t, got.After(after), "%v is after %v", got, after)
			assert.False(t, got.Round(0).Before(before.Round(0).Add(-time.Millisecond)), "wall clock %v lags %v", got.Round(0), before.Round(0))
		})
	}
}
