package anthropic_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

// unknownKeys is n object members of distinct names no type of the SDK
// knows, each of a small value, joined by commas.
func unknownKeys(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%x":0`, i)
	}
	return b.String()
}

// The SDK keeps each member of an object that its type does not name (in
// ExtraFields, with its field metadata): 100,000 unknown keys on a message
// or a content block, a body of 930 KB, allocated tens of megabytes. An
// answer, or a stream's event, of more object members than
// anthropic.MaxResponseMembers is refused before the SDK decodes it; what
// reading it takes is then a few copies of what was read.
func TestAttackS29ManyUnknownKeysAreBounded(t *testing.T) {
	const n = 100000
	keys := unknownKeys(n)
	for _, tc := range []struct {
		name, body string
		stream     bool
	}{
		{name: "message", body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"end_turn",` + keys + `,"content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1,"output_tokens":1}}`},
		{name: "content block", body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"end_turn","content":[{"type":"text","text":"hi",` + keys + `}],"usage":{"input_tokens":1,"output_tokens":1}}`},
		{name: "stream message_start", stream: true, body: "event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",` + keys + `,"content":[],"usage":{"input_tokens":1,"output_tokens":1}}}` + "\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"},
	} {
		var opts []anthropic.Option
		if tc.stream {
			opts = append(opts, anthropic.WithStream(func(string) {}))
		}
		model := anthropic.New(hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
			if tc.stream {
				w.Header().Set("Content-Type", "text/event-stream")
			} else {
				w.Header().Set("Content-Type", "application/json")
			}
			_, _ = w.Write([]byte(tc.body))
		}), "claude-sonnet-4-5", opts...)
		var err error
		used := allocated(func() {
			_, err = model.Next(context.Background(), conversation(), nil)
		})
		t.Logf("%s: %d bytes allocated to read a body of %d bytes", tc.name, used, len(tc.body))
		if assert.Error(t, err, tc.name) {
			assert.ErrorIs(t, err, anthropic.ErrResponseTooLarge, tc.name)
			assert.Contains(t, err.Error(), "anthropic.MaxResponseMembers", tc.name)
		}
		assert.LessOrEqual(t, used, uint64(16*len(tc.body)+(8<<20)), "%s: bytes allocated to read a body of %d bytes", tc.name, len(tc.body))
	}
}
