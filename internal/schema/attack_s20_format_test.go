package schema

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackS20DurationFormatIsLinear: the validator's "duration" format
// (and "period", which reads one) joined the unit letters of a duration
// into a string a letter at a time, so "P1Y1Y1Y..." cost the square of its
// length: 128 KiB took 0.75 s, and the executor lets 1 MiB through (about
// 48 s). Eight times the text must cost less than 30 times as much (the
// square is 64).
func TestAttackS20DurationFormatIsLinear(t *testing.T) {
	v, err := Compile([]byte(`{"type":"object","properties":{` +
		`"d":{"type":"string","format":"duration"},` +
		`"p":{"type":"string","format":"period"}}}`))
	require.NoError(t, err)
	for _, c := range []struct {
		field string
		value func(n int) string
	}{
		{"d", func(n int) string { return "P" + strings.Repeat("1Y", n) }},
		{"d", func(n int) string { return "PT" + strings.Repeat("1H", n) }},
		{"p", func(n int) string { return "P" + strings.Repeat("1Y", n) + "/2026-01-01T00:00:00Z" }},
	} {
		took := func(n int) time.Duration {
			args := map[string]any{c.field: c.value(n)}
			best := time.Duration(1<<63 - 1)
			for range 3 {
				start := time.Now()
				err := v.Validate(args)
				best = min(best, time.Since(start))
				require.Error(t, err, "a duration of repeated units is not valid")
			}
			return best
		}
		small, large := took(16<<10), took(128<<10)
		assert.Less(t, large, 30*max(small, time.Millisecond), "%s %.12q...: 16K units took %v, 128K %v", c.field, c.value(1), small, large)
	}
}

// TestDurationFormatsAsTheLibrary: isDuration and isPeriod accept what
// jsonschema v5's own checks accept.
func TestDurationFormatsAsTheLibrary(t *testing.T) {
	duration, period := jsonschema.Formats["duration"], jsonschema.Formats["period"]
	cases := []string{"", "P", "PT", "P1Y", "P1Y2M3D", "P1M2D", "P1D", "P1W", "P1W1D", "P1Y1Y", "P1D2M",
		"PT1H", "PT1H2M3S", "PT1S", "P1DT1H", "P1YT", "P1Y2M3DT4H5M6S", "PT1H1H", "P1", "P1T1H", "PTT",
		"P12Y", "P1é", "P1TT1H", "P1W", "1Y", "P-1Y", "P1.5Y", "P1YT1M1S1",
		"2026-01-01T00:00:00Z/P1Y", "P1Y/2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z/2026-02-01T00:00:00Z",
		"P1Y/P1Y", "/", "P1Y/", "/P1Y", "2026-01-01T00:00:00Z/P1Y1Y", "2026-01-01T00:00:00Z/"}
	r := rand.New(rand.NewPCG(20, 20))
	const alphabet = "P0123456789YMWDTHS/1Z-:"
	for range 20000 {
		b := []byte("P")
		for range r.IntN(10) {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		assert.Equal(t, duration(s), isDuration(s), "duration %q", s)
		assert.Equal(t, period(s), isPeriod(s), "period %q", s)
	}
	assert.True(t, isDuration(42), "a value that is not a string is not judged")
	assert.True(t, isPeriod(42), "a value that is not a string is not judged")
}
