package gemini_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/providers/gemini"
)

// The genai SDK decodes an answer as JSON whatever its Content-Type: an
// answer of "{}" parts labelled text/event-stream was counted as a stream
// (no data lines, so no elements) and decoded whole, 130 MB for 768 KiB.
// A body is counted as a JSON value and as a stream, whatever its label.
func TestAttackS29AnswerLabelledAStreamIsBounded(t *testing.T) {
	const n = 262144 // "{}," each: 768 KiB
	body := `{"candidates":[{"content":{"role":"model","parts":[` + repeated("{}", n) + `]},"finishReason":"STOP"}]}`
	model := hostileModel(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(body))
	}, func(c *http.Client) *http.Client { return gemini.HTTPClient(c, 0) })
	var err error
	used := allocated(func() {
		_, err = model.Next(context.Background(), conversation(), nil)
	})
	t.Logf("%d bytes allocated to read a body of %d bytes", used, len(body))
	if assert.Error(t, err) {
		assert.ErrorIs(t, err, gemini.ErrResponseTooLarge)
		assert.Contains(t, err.Error(), "gemini.MaxResponseElements")
	}
	assert.LessOrEqual(t, used, uint64(64*len(body)+(8<<20)), "bytes allocated to read a body of %d bytes", len(body))
}
