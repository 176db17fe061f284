package anthropic_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

// A stream's events are decoded one by one by the SDK, each as a whole
// answer is: one message_start whose content is "{}" repeated became a
// content block of the SDK's type for each. An event of more array
// elements than anthropic.MaxResponseElements is refused before the SDK
// decodes it.
func TestAttackS29StreamEventOfManyEmptyObjectsIsBounded(t *testing.T) {
	const n = 262144 // "{}," each: 768 KiB
	body := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[" +
		repeated("{}", n) + "],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	model := anthropic.New(hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(body))
	}), "claude-sonnet-4-5", anthropic.WithStream(func(string) {}))
	var err error
	used := allocated(func() {
		_, err = model.Next(context.Background(), conversation(), nil)
	})
	t.Logf("%d bytes allocated to read a stream of %d bytes", used, len(body))
	if assert.Error(t, err) {
		assert.ErrorIs(t, err, anthropic.ErrResponseTooLarge)
		assert.Contains(t, err.Error(), "anthropic.MaxResponseElements")
	}
	assert.LessOrEqual(t, used, uint64(64*len(body)+(8<<20)), "bytes allocated to read a stream of %d bytes", len(body))
}
