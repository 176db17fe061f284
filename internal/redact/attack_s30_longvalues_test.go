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
// 64 bytes in one pass, but searched the text once for each longer one.
// One 1 MiB command of password=... pairs with values of 65 bytes gives
// about 14,000 of them, and the audit extension scrubs a call's whole
// error message (up to 1 MiB) with them on the caller's path: measured
// with a timing run, 62 s for a 1 MiB message of "v"s (strings.Index
// falls back to Rabin-Karp there), 4.5 s for 64 KiB (a log line's error).
// The bytes read for the long values are counted (longSearched): an
// ordinary text is read once, at most maxLongScan per text or view
// whatever the text, past which the text is masked whole (fail safe).
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

	// An ordinary message that echoes one: it alone is masked.
	echo := strings.Repeat("v", 57) + "00000042"
	msg := strings.Repeat("an ordinary error line\n", (64<<10)/23) + "rejected " + echo + "."
	got := Message(msg, nil, args)
	assert.True(t, strings.HasSuffix(got, "\nrejected "+Mask+"."), "ends %q", got[len(got)-80:])
	assert.True(t, strings.HasPrefix(got, "an ordinary error line\n"))
	// Each of the 50 places in the echo where 8 "v"s start it is
	// compared with every value.
	assert.LessOrEqual(t, searched, 50*len(vals)*len(echo), "bytes read for long values")
	searched = 0
	assert.Equal(t, msg[:1000], Message(msg[:1000], nil, args))
	assert.Zero(t, searched, "an ordinary text is read once, in the one pass")

	// A message made to match every value's start everywhere: at most
	// maxLongScan (and one group of values) read per text, and the
	// message is masked whole.
	for _, hostile := range []string{strings.Repeat("v", 1<<20), strings.Repeat("%76", 1<<18)} {
		searched = 0
		got = Message(hostile+echo, nil, args)
		assert.Equal(t, Mask, got)
		assert.LessOrEqual(t, searched, 3*(maxLongScan+2<<20), "bytes read for long values")
	}

	// A few long values are still found where they are, overlapping and
	// escaped too, and only they are masked.
	long := strings.Repeat("L", 100)
	got = Scrub("a "+long+" b %41 "+long+"x "+long[:50]+long+" c %4C"+long[1:], []string{long})
	assert.Equal(t, "a "+Mask+" b %41 "+Mask+"x "+Mask+" c "+Mask, got)
	nul := "ab\x00cd"
	assert.Equal(t, "x "+Mask+" y", Scrub("x "+nul+" y", []string{nul}))
	nul = "abcdefgh\x00ijk"
	assert.Equal(t, "x "+Mask+" y", Scrub("x "+nul+" y", []string{nul}))
}
