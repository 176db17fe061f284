// Package clock is the time source of the extensions that wait (rate limit,
// retry): tests inject a fake one to run without sleeping.
package clock

import (
	"context"
	"time"
)

// Clock tells the time and waits.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx is done (returning ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
}

// Wall is the real clock.
type Wall struct{}

// Now returns time.Now().
func (Wall) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx is done.
func (Wall) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
