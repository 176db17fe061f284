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
