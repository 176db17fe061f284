package sandbox

import (
	"bytes"
	"strings"
	"testing"

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
