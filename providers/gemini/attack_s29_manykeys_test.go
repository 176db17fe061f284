package gemini_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/providers/gemini"
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

// The genai SDK decodes an answer through a map of every member, and the
// adapter reads the answer again: 100,000 unknown keys on a candidate or
// a part, a body of 930 KB, allocated tens of megabytes. Through a client
// of HTTPClient, an answer, or a stream's event, of more object members
// than gemini.MaxResponseMembers is refused before the SDK decodes it;
// what reading it takes is then a few copies of what was read.
func TestAttackS29ManyUnknownKeysAreBounded(t *testing.T) {
	const n = 100000
	keys := unknownKeys(n)
	for _, tc := range []struct {
		name, body string
		stream     bool
	}{
		{name: "candidate", body: `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP",` + keys + `}]}`},
		{name: "part", body: `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi",` + keys + `}]},"finishReason":"STOP"}]}`},
		{name: "stream event", stream: true, body: `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},` + keys + `}]}` + "\n\n"},
	} {
		var opts []gemini.Option
		if tc.stream {
			opts = append(opts, gemini.WithStream(func(string) {}))
		}
		model := hostileModel(t, func(w http.ResponseWriter, r *http.Request) {
			if tc.stream {
				w.Header().Set("Content-Type", "text/event-stream")
			} else {
				w.Header().Set("Content-Type", "application/json")
			}
			_, _ = w.Write([]byte(tc.body))
		}, func(c *http.Client) *http.Client { return gemini.HTTPClient(c, 0) }, opts...)
		var err error
		used := allocated(func() {
			_, err = model.Next(context.Background(), conversation(), nil)
		})
		t.Logf("%s: %d bytes allocated to read a body of %d bytes", tc.name, used, len(tc.body))
		if assert.Error(t, err, tc.name) {
			assert.ErrorIs(t, err, gemini.ErrResponseTooLarge, tc.name)
			assert.Contains(t, err.Error(), "gemini.MaxResponseMembers", tc.name)
		}
		assert.LessOrEqual(t, used, uint64(16*len(tc.body)+(8<<20)), "%s: bytes allocated to read a body of %d bytes", tc.name, len(tc.body))
	}
}
