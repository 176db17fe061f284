package anthropic_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

func sse(typ, data string) string { return fmt.Sprintf("event: %s\ndata: %s\n\n", typ, data) }

// The SDK's accumulator adds a text_delta to the block its index names,
// of whatever type: one aimed at a tool_use or a thinking block was shown
// to the stream callback, but the turn's text is its text blocks', so the
// user watched "I paid 500 EUR." that the transcript never recorded (the
// text went into the tool_use block's unused Text). A text_delta for a
// block that is not a text block is an error, and is not shown.
func TestAttackS17StreamTextDeltaIntoAnotherBlockIsNotShown(t *testing.T) {
	start := sse("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`)
	end := sse("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}`) + sse("message_stop", `{"type":"message_stop"}`)
	textBlock := func(i int) string {
		return sse("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i))
	}
	delta := func(i int, text string) string {
		return sse("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%q}}`, i, text))
	}
	stop := func(i int) string {
		return sse("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
	}
	for name, body := range map[string]string{
		"into a tool_use block": start + textBlock(0) + delta(0, "Nothing to do.") + stop(0) +
			sse("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"noop","input":{}}}`) +
			delta(1, " I paid 500 EUR.") + stop(1) + end,
		"into a thinking block": start +
			sse("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`) +
			delta(0, "I paid 500 EUR. ") + stop(0) + textBlock(1) + delta(1, "Nothing to do.") + stop(1) + end,
	} {
		t.Run(name, func(t *testing.T) {
			client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, body)
			})
			var shown strings.Builder
			msg, err := anthropic.New(client, "claude-sonnet-4-5", anthropic.WithStream(func(s string) { shown.WriteString(s) })).
				Next(context.Background(), conversation(), nil)
			require.Error(t, err, "turn %q; shown %q", msg.Text, shown.String())
			assert.Contains(t, err.Error(), "text_delta")
			assert.NotContains(t, shown.String(), "I paid", "text for another block is never shown")
		})
	}
	// Text blocks' deltas are shown as before.
	client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, start+textBlock(0)+delta(0, "Nothing ")+delta(0, "to do.")+stop(0)+end)
	})
	var shown strings.Builder
	msg, err := anthropic.New(client, "claude-sonnet-4-5", anthropic.WithStream(func(s string) { shown.WriteString(s) })).
		Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	assert.Equal(t, "Nothing to do.", msg.Text)
	assert.Equal(t, "Nothing to do.", shown.String())
}
