// Package clock is the time source of the extensions that wait (rate limit,
// retry): tests inject a fake one to run without sleeping.
package clock

import (
	"context"
	"sync"
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

// Fake is a Clock for tests: it moves only when told to (Advance) or when
// something sleeps on it, which it records instead of waiting.
type Fake struct {
	mu    sync.Mutex
	t     time.Time
	slept []time.Duration
}

// NewFake returns a Fake set to the current time.
func NewFake() *Fake { return &Fake{t: time.Now()} }

// Now returns the fake time.
func (c *Fake) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Advance moves the fake time forward by d.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Sleep returns ctx.Err() if ctx is done; otherwise it advances the time by
// d at once and records d.
func (c *Fake) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.slept = append(c.slept, d)
	c.mu.Unlock()
	return nil
}

// Slept returns the durations slept so far.
func (c *Fake) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}
