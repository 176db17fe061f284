package ratelimit

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A count past what a bucket's float64 tokens hold exactly overflowed the
// remaining count a grant reports: 9223372036854775807/s took a token and
// reported math.MinInt remaining (shown as 0: "no calls left" on a call
// that had all of them). Such a rate is refused where it is written, with
// the largest count allowed.
func TestAttackS17HugeRateReportsNegativeRemaining(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("an int holds no count over 2^53 here")
	}
	largest := maxCount // a variable: on 32 bits the conversions below would not compile
	over := int(largest + 1)
	for _, r := range []Rate{
		{Events: math.MaxInt, Per: time.Second},
		{Events: 10, Per: time.Second, Burst: math.MaxInt},
		{Events: over, Per: time.Hour},
	} {
		if err := r.check(); err == nil {
			g, _ := TakeAll([]Bucket{{Key: "k", Rate: r}}, []State{r.Fresh(time.Unix(0, 0))})
			t.Errorf("rate %+v accepted; a first call reports %d remaining", r, g.Remaining[0])
		} else if !strings.Contains(err.Error(), "9007199254740992") {
			t.Errorf("rate %+v: the error does not name the largest count: %v", r, err)
		}
	}
	if _, err := ParseRate("9223372036854775807/s"); err == nil {
		t.Error(`ParseRate("9223372036854775807/s") accepted`)
	}
	// The largest count is kept exactly.
	r := Rate{Events: int(largest), Per: time.Hour}
	if err := r.check(); err != nil {
		t.Fatal(err)
	}
	g, _ := TakeAll([]Bucket{{Key: "k", Rate: r}}, []State{r.Fresh(time.Unix(0, 0))})
	if int64(g.Remaining[0]) != maxCount-1 {
		t.Errorf("rate %+v: a first call reports %d remaining, want %d", r, g.Remaining[0], maxCount-1)
	}
}
