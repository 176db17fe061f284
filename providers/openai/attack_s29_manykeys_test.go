package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/providers/openai"
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
// ExtraFields, with its field metadata), and the adapter reads the answer
// again: 100,000 unknown keys on a message, a body of 930 KB, allocated
// 57 MB, and one within the 32 MiB bound 2 GB. An answer, or a stream's
// event, of more object members than openai.MaxResponseMembers is refused
// before the SDK decodes it; what reading it takes is then a few copies
// of what was read.
func TestAttackS29ManyUnknownKeysAreBounded(t *testing.T) {
	const n = 100000
	keys := unknownKeys(n)
	for _, tc := range []struct {
		name, body string
		responses  bool
		stream     bool
	}{
		{name: "chat message", body: `{"id":"c1","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hi",` + keys + `}}]}`},
		{name: "chat answer", body: `{"id":"c1","object":"chat.completion",` + keys + `,"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hi"}}]}`},
		{name: "responses output item", responses: true, body: `{"id":"r1","object":"response","status":"completed","output":[{"type":"message","id":"m1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"hi","annotations":[]}],` + keys + `}]}`},
		{name: "chat stream chunk", stream: true, body: "data: " + `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi",` + keys + `}}]}` + "\n\ndata: [DONE]\n\n"},
	} {
		client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
			if tc.stream {
				w.Header().Set("Content-Type", "text/event-stream")
			} else {
				w.Header().Set("Content-Type", "application/json")
			}
			_, _ = w.Write([]byte(tc.body))
		})
		var err error
		used := allocated(func() {
			switch {
			case tc.responses:
				_, err = openai.NewResponses(client, "gpt-5").Next(context.Background(), conversation(), nil)
			case tc.stream:
				_, err = openai.New(client, "gpt-4.1", openai.WithStream(func(string) {})).Next(context.Background(), conversation(), nil)
			default:
				_, err = openai.New(client, "gpt-4.1").Next(context.Background(), conversation(), nil)
			}
		})
		t.Logf("%s: %d bytes allocated to read a body of %d bytes", tc.name, used, len(tc.body))
		if assert.Error(t, err, tc.name) {
			assert.ErrorIs(t, err, openai.ErrResponseTooLarge, tc.name)
			assert.Contains(t, err.Error(), "openai.MaxResponseMembers", tc.name)
		}
		assert.LessOrEqual(t, used, uint64(16*len(tc.body)+(8<<20)), "%s: bytes allocated to read a body of %d bytes", tc.name, len(tc.body))
	}
}
