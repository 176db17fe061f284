package gemini_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/providers/gemini"
)

// The genai SDK does not read a stream by lines: it cuts it at "\n\n"
// (or "\r\n\r\n") and decodes all that follows the first colon of the
// piece as JSON, lines that are not data lines too. An event whose parts
// were on a line of their own, or split by "\r\n\r\n" inside the value,
// was counted as a data line and a field the guard did not read, or as
// two events.
func TestAttackS29ReviewStreamLinesAsGenaiReadsThem(t *testing.T) {
	const n = 262144 // "{}," each: 768 KiB
	half := repeated("{}", n/2)
	for name, body := range map[string]string{
		"parts on a line of their own": "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[\n" + repeated("{}", n) + "]}}]}\n\n",
		"parts after a field":          "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":\nx: [" + repeated("{}", n) + "]}}]}\n\n",
		"parts split by CRLF CRLF":     "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[" + strings.Repeat(repeated("{}", 8000)+",\r\n\r\n", n/8000) + "{}]}}]}\n\n",
		"parts split by CR CR":         "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[" + half + ",\r\r" + half + "]}}]}\n\n",
	} {
		model := hostileModel(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(body))
		}, func(c *http.Client) *http.Client { return gemini.HTTPClient(c, 0) }, gemini.WithStream(func(string) {}))
		var err error
		used := allocated(func() {
			_, err = model.Next(context.Background(), conversation(), nil)
		})
		t.Logf("%s: %d bytes allocated to read a stream of %d bytes, err %v", name, used, len(body), err != nil)
		// The SDK may cut at a "\r\n\r\n" itself (when no "\n\n" is in
		// its buffer yet) and fail on the broken first piece before the
		// guard does: an error either way, and the bytes are the check.
		assert.Error(t, err, name)
		assert.LessOrEqual(t, used, uint64(64*len(body)+(8<<20)), "%s: bytes allocated to read a stream of %d bytes", name, len(body))
	}
}
