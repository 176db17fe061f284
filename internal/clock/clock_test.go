package clock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/internal/clock"
)

func TestWallSleepHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, clock.Wall{}.Sleep(ctx, time.Hour), context.Canceled)
	assert.NoError(t, clock.Wall{}.Sleep(context.Background(), time.Millisecond))
	assert.WithinDuration(t, time.Now(), clock.Wall{}.Now(), time.Second)
}

func TestFake(t *testing.T) {
	c := clock.NewFake()
	start := c.Now()
	c.Advance(time.Minute)
	assert.NoError(t, c.Sleep(context.Background(), time.Second))
	assert.Equal(t, time.Minute+time.Second, c.Now().Sub(start))
	assert.Equal(t, []time.Duration{time.Second}, c.Slept())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, c.Sleep(ctx, time.Hour), context.Canceled)
	assert.Len(t, c.Slept(), 1, "a cancelled sleep is not recorded")
}
