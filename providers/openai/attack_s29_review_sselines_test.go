package openai_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/providers/openai"
)

// The Stainless SDKs read a stream by lines ending in "\n" (a "\r"
// before it dropped): a lone "\r" does not end a line. A chunk whose
// choices came after a lone "\r" was counted as a data line and a field
// the guard did not read, while the SDK decoded one line of JSON, the
// "\r" a blank in it.
func TestAttackS29ReviewStreamLoneCRIsNoLineEnd(t *testing.T) {
	const n = 262144 // "{}," each: 768 KiB
	for name, event := range map[string]string{
		"choices after a CR":       "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\"\r,\"choices\":[" + repeated("{}", n) + "]}",
		"choices after CR CR":      "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[" + repeated("{}", n/2) + ",\r\r" + repeated("{}", n/2) + "]}",
		"choices after CR, a data": "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[" + repeated("{}", n/2) + ",\r\rdata: " + repeated("{}", n/2) + "]}",
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
		t.Logf("%s: %d bytes allocated to read a stream of %d bytes, err %v", name, used, len(body), err != nil)
		if assert.Error(t, err, name) {
			assert.ErrorIs(t, err, openai.ErrResponseTooLarge, name)
		}
		assert.LessOrEqual(t, used, uint64(64*len(body)+(8<<20)), "%s: bytes allocated to read a stream of %d bytes", name, len(body))
	}
}
