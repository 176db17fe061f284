package gemini_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/providers/gemini"
)

// A stream's events are decoded one by one by the SDK, each as a whole
// answer is: one event whose list of parts is "{}" repeated became a part
// of the SDK's type for each. Through a client of HTTPClient, an event of
// more array elements than gemini.MaxResponseElements is refused before
// the SDK decodes it.
func TestAttackS29StreamEventOfManyEmptyObjectsIsBounded(t *testing.T) {
	const n = 262144 // "{}," each: 768 KiB
	body := `data: {"candidates":[{"content":{"role":"model","parts":[` + repeated("{}", n) + `]}}]}` + "\n\n"
	model := hostileModel(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(body))
	}, func(c *http.Client) *http.Client { return gemini.HTTPClient(c, 0) }, gemini.WithStream(func(string) {}))
	var err error
	used := allocated(func() {
		_, err = model.Next(context.Background(), conversation(), nil)
	})
	t.Logf("%d bytes allocated to read a stream of %d bytes", used, len(body))
	if assert.Error(t, err) {
		assert.ErrorIs(t, err, gemini.ErrResponseTooLarge)
		assert.Contains(t, err.Error(), "gemini.MaxResponseElements")
	}
	assert.LessOrEqual(t, used, uint64(64*len(body)+(8<<20)), "bytes allocated to read a stream of %d bytes", len(body))
}
