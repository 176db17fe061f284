package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackS30ScrubManyLongValuesIsBounded: Scrub finds values of up to
// 64 bytes in one pass, but searches the text once for each longer one.
// One 1 MiB command of password=... pairs with values of 65 bytes gives
// about 14,900 of them, and the audit extension scrubs a call's whole
// error message (up to 1 MiB) with them on the caller's path: measured
// with a timing run, 62 s for a 1 MiB message of "a"s (strings.Index
// falls back to Rabin-Karp there), 4.5 s for 64 KiB (a log line's error).
// The bytes searched are counted (longSearched): at most maxLongScan per
// text or view; past that the text is masked whole (fail safe), and an
// echoed value is never kept.
func TestAttackS30ScrubManyLongValuesIsBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20-100; i++ {
		fmt.Fprintf(&b, "password=%s%08d ", strings.Repeat("v", 57), i)
	}
	args, err := json.Marshal(map[string]string{"command": b.String()})
	require.NoError(t, err)
	vals := SecretValues(args, nil)
	require.Greater(t, len(vals), 13000)

	searched := 0
	longSearched = func(n int) { searched += n }
	defer func() { longSearched = nil }()

	echo := strings.Repeat("v", 57) + "00000042"
	msg := strings.Repeat("an ordinary error line\n", (64<<10)/23) + "rejected " + echo + "."
	got := Message(msg, nil, args)
	assert.NotContains(t, got, echo)
	assert.NotContains(t, got, "00000042")
	assert.Equal(t, Mask, got, "the message is masked whole (fail safe)")
	// A view (percent-encoding) doubles the texts searched; three texts
	// (the message and its two views) at most.
	assert.LessOrEqual(t, searched, 3*maxLongScan, "bytes searched for long values")

	// A few long values are still found where they are, and only they
	// are masked.
	searched = 0
	long := strings.Repeat("L", 100)
	got = Scrub("a "+long+" b %41 "+long+"x", []string{long})
	assert.Equal(t, "a "+Mask+" b %41 "+Mask+"x", got)
	assert.Positive(t, searched)
}
