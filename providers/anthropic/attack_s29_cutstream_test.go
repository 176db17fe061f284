package anthropic_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

// The SDK's accumulator writes the blocks it gathered into the message's
// JSON at message_stop alone, and the turn (its calls and its Raw) is read
// from that JSON. A stream that ended before message_stop (an endpoint or
// a proxy that closed it cleanly) gave a turn with the text shown so far
// and no calls: the tool_use block it had streamed was dropped, the Raw
// sent back next was the empty content of message_start, and agent.Run
// took the cut text for the final answer. Blocks after message_stop were
// shown and put in the turn's text, but not in the Raw the next request
// sends. Both are errors now.
func TestAttackS29StreamCutBeforeMessageStopIsAnError(t *testing.T) {
	start := sse("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`)
	text := sse("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me delete the old backups."}}`) +
		sse("content_block_stop", `{"type":"content_block_stop","index":0}`)
	call := sse("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"delete_backups","input":{}}}`) +
		sse("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"older_than\":\"30d\"}"}}`) +
		sse("content_block_stop", `{"type":"content_block_stop","index":1}`)
	end := sse("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":1}}`) + sse("message_stop", `{"type":"message_stop"}`)
	after := sse("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}`) +
		sse("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":" Done, all deleted."}}`)
	serve := func(body string) sdk.Client {
		return hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, body)
		})
	}
	next := func(body string) (agent.Message, string, error) {
		var shown strings.Builder
		msg, err := anthropic.New(serve(body), "claude-sonnet-4-5", anthropic.WithStream(func(s string) { shown.WriteString(s) })).
			Next(context.Background(), conversation(), nil)
		return msg, shown.String(), err
	}
	for name, body := range map[string]string{
		"cut after the call":             start + text + call,
		"cut after message_delta":        start + text + call + sse("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":1}}`),
		"a block after message_stop":     start + text + call + end + after,
		"cut with nothing after message": start,
	} {
		t.Run(name, func(t *testing.T) {
			msg, shown, err := next(body)
			require.Error(t, err, "turn %q with %d calls, raw %s", msg.Text, len(msg.Calls), msg.Raw)
			assert.Contains(t, err.Error(), "message_stop")
			assert.NotContains(t, shown, "all deleted", "text after message_stop is not shown")
		})
	}
	// The whole stream is the turn, as before.
	msg, shown, err := next(start + text + call + end)
	require.NoError(t, err)
	assert.Equal(t, "Let me delete the old backups.", msg.Text)
	assert.Equal(t, msg.Text, shown)
	require.Len(t, msg.Calls, 1)
	assert.Equal(t, "delete_backups", msg.Calls[0].Name)
	assert.JSONEq(t, `{"older_than":"30d"}`, string(msg.Calls[0].Args))
}
