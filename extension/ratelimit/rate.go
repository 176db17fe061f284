package ratelimit

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// Rate is a number of calls per period, with a burst (the bucket's size).
type Rate struct {
	// Events is how many calls the period allows.
	Events int
	// Per is the period.
	Per time.Duration
	// Burst is how many calls may run back to back; 0 means Events, so "100
	// per hour" allows 100 at once and then one every 36s.
	Burst int
}

// Per returns a Rate of events calls per period.
func Per(events int, period time.Duration) Rate { return Rate{Events: events, Per: period} }

// PerHour returns a Rate of n calls per hour (the unit of Spec.RateLimitPerHour).
func PerHour(n int) Rate { return Per(n, time.Hour) }

var rateRE = regexp.MustCompile(`^\s*(\d+)\s*(?:/|per)\s*(\S+)\s*$`)

var units = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
}

// ParseRate parses "100/hour", "100 per hour", "10/s", "5 per minute",
// "1000/day", and a Go duration as the period ("3/90s"). A rate of zero is
// refused: to forbid a tool use the auth or policy extension, and to lift a
// limit leave it out.
func ParseRate(s string) (Rate, error) {
	m := rateRE.FindStringSubmatch(strings.ToLower(s))
	if m == nil {
		return Rate{}, fmt.Errorf("ratelimit: rate %q: write it as <count>/<unit> or <count> per <unit>, e.g. \"100/hour\", \"10/s\", \"5 per minute\"", s)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return Rate{}, fmt.Errorf("ratelimit: rate %q: count %q is too large", s, m[1])
	}
	per, ok := units[m[2]]
	if !ok {
		d, err := time.ParseDuration(m[2])
		if err != nil || d <= 0 {
			return Rate{}, fmt.Errorf("ratelimit: rate %q: unknown unit %q: use s, minute, hour, day or a duration such as 90s", s, m[2])
		}
		per = d
	}
	r := Rate{Events: n, Per: per}
	return r, r.check()
}

func (r Rate) check() error {
	if r.Events <= 0 {
		return fmt.Errorf("ratelimit: rate %s allows no calls, which would block every call for good: remove the limit, or forbid the tool with the auth or policy extension", r)
	}
	if r.Per <= 0 {
		return fmt.Errorf("ratelimit: rate %s has no period: set Per to a positive duration", r)
	}
	if r.Burst < 0 {
		return fmt.Errorf("ratelimit: rate %s has a negative burst: use 0 (= Events) or a positive number", r)
	}
	if int64(r.Events) > maxCount || int64(r.Burst) > maxCount {
		return fmt.Errorf("ratelimit: rate %s: a count or burst may be at most %d: to lift a limit leave it out", r, maxCount)
	}
	return nil
}

// Limit returns the rate as tokens per second.
func (r Rate) Limit() rate.Limit { return rate.Limit(float64(r.Events) / r.Per.Seconds()) }

func (r Rate) burst() int {
	if r.Burst > 0 {
		return r.Burst
	}
	return r.Events
}

// refill is how long an untouched bucket takes to fill up again; after it a
// bucket is the same as a new one, so forgetting it loses nothing. A time
// past what a Duration holds (a large burst over a long period) is the
// longest Duration, not an overflow to a negative one, which would make
// every bucket look full and be forgotten mid-period.
func (r Rate) refill() time.Duration {
	return tokensTime(float64(r.burst()), r)
}

// tokensTime is how long r takes to add n tokens: rounded up (a token is
// not there before it), and the longest Duration when that is longer than
// a Duration holds (a conversion past it would be negative: no wait at
// all).
func tokensTime(n float64, r Rate) time.Duration {
	d := math.Ceil(n / float64(r.Limit()) * float64(time.Second))
	if d >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(d)
}

// String formats the rate as "100/hour".
func (r Rate) String() string {
	unit := r.Per.String()
	switch r.Per {
	case time.Second:
		unit = "s"
	case time.Minute:
		unit = "minute"
	case time.Hour:
		unit = "hour"
	case 24 * time.Hour:
		unit = "day"
	}
	s := strconv.Itoa(r.Events) + "/" + unit
	if r.Burst > 0 && r.Burst != r.Events {
		s += " (burst " + strconv.Itoa(r.Burst) + ")"
	}
	return s
}

// maxCount is the largest count of calls (or burst) a Rate may name: a
// bucket's tokens are a float64, exact up to 2^53.
const maxCount int64 = 1 << 53
