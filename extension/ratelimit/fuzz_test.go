package ratelimit

import (
	"math"
	"strings"
	"testing"
	"time"
)

// FuzzParseRate feeds ParseRate hostile rate strings (a tool spec or
// governance file): what it accepts allows calls, over a positive period,
// writes back (String) as a rate that parses to the same, and has a
// positive refill time (whatever its burst), so that an idle bucket is
// never dropped before it is full again.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{
		"100/hour", "100 per hour", "10/s", "5 per minute", "1000/day", "3/90s", " 7 / 2h30m ",
		"0/hour", "-1/hour", "1/0s", "1/-5s", "1/1ns", "100/87600h", "1/2562047h", "9223372036854775807/1ns",
		"9223372036854775808/s", "99999999999999999999/s", "1/", "/s", "1 per", "1perhour", "1 PER HOUR",
		"١٠/s", "1/ｓ", "1/s\x00", "1/\xff", strings.Repeat("1", 1000) + "/s", "1/" + strings.Repeat("9", 30) + "h",
	} {
		f.Add(s, 0)
	}
	f.Add("3/s", -1)
	f.Fuzz(func(t *testing.T, s string, burst int) {
		r, err := ParseRate(s)
		if err != nil {
			return
		}
		if r.Events <= 0 || r.Per <= 0 || r.Burst != 0 {
			t.Fatalf("ParseRate(%q) = %+v", s, r)
		}
		back, err := ParseRate(r.String())
		if err != nil || back != r {
			t.Fatalf("ParseRate(%q) = %+v, written %q, which parses to %+v (%v)", s, r, r.String(), back, err)
		}
		if l := float64(r.Limit()); l <= 0 || math.IsInf(l, 0) || math.IsNaN(l) {
			t.Fatalf("ParseRate(%q) = %+v: limit %v tokens/s", s, r, l)
		}
		// With a burst set (Rate.Burst, in code): a bucket takes
		// burst/limit to fill, never less than one token's share of the
		// period, never negative (an overflow would make every idle bucket
		// look full, and a sweep drop it mid-period: a fresh bucket).
		r.Burst = burst
		if r.check() != nil {
			return
		}
		if d := r.refill(); d <= 0 || d < r.Per/time.Duration(r.Events) {
			t.Fatalf("%+v: refill time %v", r, d)
		}
	})
}
