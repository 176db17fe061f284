package sandbox

import (
	"strconv"
	"unicode/utf8"

	"github.com/toolbelt-go/toolbelt/internal/textcut"
)

// Stream names passed to [Spec.OnOutput].
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
)

// floodSlack is how far past its cap a stream may go before the command's
// process group is killed: at least 1 MiB, or three times the cap. Discarding
// silently would let a flood run until the timeout; an error at the cap would
// kill a command that prints a little more than the cap and then exits.
func floodSlack(limit int64) int64 {
	return max(3*limit, 1<<20)
}

// capture keeps the head and the tail of one stream within a byte cap, counts
// everything, and knows when the stream has flooded. It is written by one
// goroutine and read after that goroutine is done.
//
// Each end keeps a character's worth of bytes more than its share of the
// cap, so that bytes can cut it on a whole character (internal/textcut).
type capture struct {
	limit   int64 // 0: keep everything
	headCut int   // the head's share of the cap
	head    []byte
	headMax int
	tail    []byte // ring buffer of tailMax bytes
	tailMax int
	tailPos int // next write position in tail once it is full
	total   int64
}

func newCapture(limit int64) *capture {
	c := &capture{limit: limit}
	if limit > 0 {
		c.headCut = int(limit / 2)
		c.headMax = c.headCut + utf8.UTFMax - 1
		c.tailMax = int(limit) - c.headCut + utf8.UTFMax - 1
	}
	return c
}

// write records p and reports whether the stream has gone past the flood bound.
func (c *capture) write(p []byte) (flooded bool) {
	c.total += int64(len(p))
	if c.limit == 0 {
		c.head = append(c.head, p...)
		return false
	}
	if n := c.headMax - len(c.head); n > 0 {
		n = min(n, len(p))
		// Grown as output arrives: most commands print far less than the
		// cap, which would otherwise be allocated (and zeroed) on every run.
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	if len(p) > 0 && c.tailMax > 0 {
		if len(p) >= c.tailMax {
			// Only the last tailMax bytes can survive: restart the ring with them.
			if cap(c.tail) < c.tailMax {
				c.tail = make([]byte, 0, c.tailMax)
			}
			c.tail = append(c.tail[:0], p[len(p)-c.tailMax:]...)
			c.tailPos = 0
		} else if room := c.tailMax - len(c.tail); room > 0 {
			if c.tail == nil {
				c.tail = make([]byte, 0, c.tailMax)
			}
			n := min(room, len(p))
			c.tail = append(c.tail, p[:n]...)
			c.ringWrite(p[n:])
		} else {
			c.ringWrite(p)
		}
	}
	return c.total > c.limit+floodSlack(c.limit)
}

// ringWrite writes p (shorter than the ring) into the full ring.
func (c *capture) ringWrite(p []byte) {
	for len(p) > 0 {
		n := copy(c.tail[c.tailPos:], p)
		p = p[n:]
		c.tailPos = (c.tailPos + n) % c.tailMax
	}
}

// truncated reports whether bytes were cut.
func (c *capture) truncated() bool { return c.limit > 0 && c.total > c.limit }

// bytes returns what was kept: everything when within the cap, else the head
// and the tail within the cap, each cut on a whole character, with a marker
// between them that says how many bytes were cut.
func (c *capture) bytes() []byte {
	if !c.truncated() {
		out := make([]byte, 0, len(c.head)+len(c.tail))
		out = append(out, c.head...)
		return append(out, c.orderedTail()...)
	}
	head := textcut.Head(c.head, c.headCut)
	tail := textcut.Tail(c.orderedTail(), int(c.limit)-c.headCut)
	marker := TruncationMarker(c.total - int64(len(head)) - int64(len(tail)))
	out := make([]byte, 0, len(head)+len(marker)+len(tail))
	out = append(out, head...)
	out = append(out, marker...)
	return append(out, tail...)
}

func (c *capture) orderedTail() []byte {
	if len(c.tail) < c.tailMax || c.tailPos == 0 {
		return c.tail
	}
	out := make([]byte, 0, len(c.tail))
	out = append(out, c.tail[c.tailPos:]...)
	return append(out, c.tail[:c.tailPos]...)
}

// TruncationMarker is the text put between the head and the tail of a stream
// that went over its cap; cut is the number of bytes left out.
func TruncationMarker(cut int64) string {
	return "\n[... " + strconv.FormatInt(cut, 10) + " bytes cut ...]\n"
}
