package httptool

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Retry-After in seconds is capped at a day; as an HTTP date it was not:
// a server answering 429 or 503 with "Retry-After: Fri, 31 Dec 9999
// 23:59:59 GMT" gave the error a RetryAfter of 292 years (time.Duration's
// maximum), which the retry extension waits for when the call has no
// deadline and the model reads as "retryable after 2562047h47m16s". A date
// is capped as the seconds are.
func TestAttackS15RetryAfterDateIsCapped(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, v := range []string{"Fri, 31 Dec 9999 23:59:59 GMT", now.Add(48 * time.Hour).Format(http.TimeFormat), "99999999999999999999"} {
		d, ok := retryAfter(v, now)
		if ok {
			assert.LessOrEqual(t, d, 24*time.Hour, v)
		}
	}
	d, ok := retryAfter(now.Add(90*time.Minute).Format(http.TimeFormat), now)
	assert.True(t, ok)
	assert.Equal(t, 90*time.Minute, d)
}
