package schema

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackS20DurationFormatIsLinear: the validator's "duration" format
// (and "period", which reads one) joined the unit letters of a duration
// into a string a letter at a time, so "P1Y1Y1Y..." cost the square of its
// length: 128 KiB took 0.75 s, and the executor lets 1 MiB through (about
// 48 s). The cost is counted in bytes allocated, not timed (a shared
// machine's clock is noise): eight times the text must allocate less than
// 16 times as much. Linear work allocates about 8 times (the value's
// copies); the old join allocated a string per letter as long as the
// letters so far, the square of the text, 64 times (measured 7.9 times;
// with durationUnits' bound of four letters removed, 63.5 times: fails).
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
		cost := func(n int) uint64 {
			args := map[string]any{c.field: c.value(n)}
			var err error
			b := allocatedBytes(func() { err = v.Validate(args) })
			require.Error(t, err, "a duration of repeated units is not valid")
			return b
		}
		small, large := cost(16<<10), cost(128<<10)
		t.Logf("%s %.12q...: 16K units allocated %d bytes, 128K %d (%.1f times)", c.field, c.value(1), small, large, float64(large)/float64(small))
		assert.Less(t, large, 16*small, "%s %.12q...: 16K units allocated %d bytes, 128K %d", c.field, c.value(1), small, large)
	}
}

// allocatedBytes returns the bytes f allocates on the heap in one call: a
// count of work that does not depend on how busy the machine is.
func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
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
