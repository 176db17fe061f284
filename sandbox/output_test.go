package sandbox

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestCaptureHeadTail(t *testing.T) {
	data := []byte(strings.Repeat("0123456789", 100)) // 1000 bytes
	for _, chunk := range []int{1, 3, 7, 64, 1000} {
		c := newCapture(100)
		for i := 0; i < len(data); i += chunk {
			c.write(data[i:min(i+chunk, len(data))])
		}
		want := string(data[:50]) + TruncationMarker(900) + string(data[950:])
		assert.Equal(t, want, string(c.bytes()), "chunk %d", chunk)
		assert.True(t, c.truncated())
		assert.Equal(t, int64(1000), c.total)
	}

	c := newCapture(100)
	c.write(data[:100])
	assert.Equal(t, string(data[:100]), string(c.bytes()), "exactly at the cap nothing is cut")
	assert.False(t, c.truncated())

	c = newCapture(0)
	c.write(data)
	assert.True(t, bytes.Equal(data, c.bytes()), "0 keeps everything")

	c = newCapture(10)
	assert.False(t, c.write(make([]byte, 1<<20)), "within the slack")
	assert.True(t, c.write(make([]byte, 100)), "past cap + slack is a flood")
}

// A stream cut at its cap was cut at a byte: the head ended and the tail
// began inside a character, which a model or a record then reads as
// U+FFFD. The kept head and tail now end and begin on whole characters
// (internal/textcut's rule), and the marker counts what was left out.
func TestCaptureCutsOnCharacters(t *testing.T) {
	data := strings.Repeat("€", 400) // 1200 bytes, 3 a character
	for _, limit := range []int64{100, 101, 102, 7} {
		for _, chunk := range []int{1, 2, 5, 64, 1200} {
			c := newCapture(limit)
			for i := 0; i < len(data); i += chunk {
				c.write([]byte(data[i:min(i+chunk, len(data))]))
			}
			out := string(c.bytes())
			assert.True(t, utf8.ValidString(out), "limit %d chunk %d: %q", limit, chunk, out)
			head, tail, ok := strings.Cut(out, "\n[... ")
			if !assert.True(t, ok, "limit %d chunk %d: no marker in %q", limit, chunk, out) {
				continue
			}
			_, tail, _ = strings.Cut(tail, " ...]\n")
			assert.True(t, strings.HasPrefix(data, head) && strings.HasSuffix(data, tail))
			assert.LessOrEqual(t, int64(len(head)+len(tail)), limit)
			assert.Greater(t, len(head)+len(tail), int(limit)-6, "limit %d chunk %d: more than a character cut at each end", limit, chunk)
			assert.Equal(t, head+TruncationMarker(int64(len(data)-len(head)-len(tail)))+tail, out)
		}
	}
	// Bytes that are not UTF-8 are kept as they come, to the byte.
	bin := bytes.Repeat([]byte{0xff, 0x80}, 500)
	c := newCapture(101)
	c.write(bin)
	assert.Equal(t, string(bin[:50])+TruncationMarker(899)+string(bin[949:]), string(c.bytes()))
}
