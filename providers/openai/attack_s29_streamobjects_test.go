package openai_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/providers/openai"
)

// A stream's events are decoded one by one by the SDK, each as a whole
// answer is: one chunk whose list of choices (or of tool-call deltas) is
// "{}" repeated became a value of the SDK's type for each, 1.4 KB for 3
// bytes, so that a single event of 768 KiB allocated 358 MB, and
// MaxStreamToolCalls, which counts what the SDK decoded, came too late.
// An event of more array elements than openai.MaxResponseElements is
// refused before the SDK decodes it.
func TestAttackS29StreamEventOfManyEmptyObjectsIsBounded(t *testing.T) {
	const n = 262144 // "{}," each: 768 KiB
	for name, event := range map[string]string{
		"choices":    `{"id":"c1","object":"chat.completion.chunk","choices":[` + repeated("{}", n) + `]}`,
		"tool_calls": `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[` + repeated(`{}`, n) + `]}}]}`,
	} {
		body := "data: " + event + "\n\ndata: [DONE]\n\n"
		client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(body))
		})
		var err error
		used := allocated(func() {
			_, err = openai.New(client, "gpt-4.1", openai.WithStream(func(string) {})).Next(context.Background(), conversation(), nil)
		})
		t.Logf("%s: %d bytes allocated to read a stream of %d bytes", name, used, len(body))
		if assert.Error(t, err, name) {
			assert.ErrorIs(t, err, openai.ErrResponseTooLarge, name)
			assert.Contains(t, err.Error(), "openai.MaxResponseElements", name)
		}
		assert.LessOrEqual(t, used, uint64(64*len(body)+(8<<20)), "%s: bytes allocated to read a stream of %d bytes", name, len(body))
	}
}
