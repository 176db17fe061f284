package openai_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/providers/openai"
)

// The SDK reads the answer to a stream request as an event stream,
// whatever its Content-Type. A stream labelled application/json was
// counted as one JSON text, which a quote in a comment line put out of
// step: the elements of the chunk after it were read as a string's
// characters, and the chunk of "{}" choices was decoded, 358 MB for
// 768 KiB. A body is counted as a JSON value and as a stream, whatever
// its label.
func TestAttackS29StreamLabelledJSONIsBounded(t *testing.T) {
	const n = 262144 // "{}," each: 768 KiB
	body := ": \"\ndata: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[" + repeated("{}", n) + "]}\n\ndata: [DONE]\n\n"
	client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	})
	var err error
	used := allocated(func() {
		_, err = openai.New(client, "gpt-4.1", openai.WithStream(func(string) {})).Next(context.Background(), conversation(), nil)
	})
	t.Logf("%d bytes allocated to read a stream of %d bytes", used, len(body))
	if assert.Error(t, err) {
		assert.ErrorIs(t, err, openai.ErrResponseTooLarge)
		assert.Contains(t, err.Error(), "openai.MaxResponseElements")
	}
	assert.LessOrEqual(t, used, uint64(64*len(body)+(8<<20)), "bytes allocated to read a stream of %d bytes", len(body))
}
