package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/openai"
)

// tokenLogprob is the logprobs entry of one token asked for with
// top_logprobs 5 (openai.WithParams): an object of four members, its
// bytes a list, and five alternatives of three members and their bytes.
func tokenLogprob() string {
	top := make([]string, 5)
	for j := range top {
		top[j] = fmt.Sprintf(`{"token":" w%d","logprob":-%d.25,"bytes":[32,119,%d]}`, j, j, 48+j)
	}
	return `{"token":" w","logprob":-0.01,"bytes":[32,119],"top_logprobs":[` + strings.Join(top, ",") + `]}`
}

// logprobsAnswer is a chat answer of tokens tokens with their logprobs.
func logprobsAnswer(tokens int) string {
	entries := strings.TrimSuffix(strings.Repeat(tokenLogprob()+",", tokens), ",")
	return `{"id":"c1","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"` +
		strings.Repeat(" w", tokens) + `"},"logprobs":{"content":[` + entries + `]}}]}`
}

// An answer asked for with logprobs is a real one, and its logprobs are
// values of the SDK's types (about 18 KB allocated per token with
// top_logprobs 5, measured), which MaxResponseElements and
// MaxResponseMembers count as they count choices: a non-streamed answer
// of 300 tokens passes, one of 1000 (about 23 elements a token) is
// refused with an error naming the bound, and a streamed one of 4000
// tokens, counted event by event, passes. docs/providers.md says so.
func TestAttackS29ReviewLogprobsAnswer(t *testing.T) {
	_, err := jsonClient(t, logprobsAnswer(300)).Next(context.Background(), conversation(), nil)
	require.NoError(t, err, "300 tokens")

	_, err = jsonClient(t, logprobsAnswer(1000)).Next(context.Background(), conversation(), nil)
	if assert.Error(t, err, "1000 tokens, not streamed") {
		assert.ErrorIs(t, err, openai.ErrResponseTooLarge)
		assert.Contains(t, err.Error(), "openai.MaxResponseElements")
	}

	var stream strings.Builder
	for range 4000 {
		fmt.Fprintf(&stream, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"content":" w"},"logprobs":{"content":[%s]}}]}`+"\n\n", tokenLogprob())
	}
	stream.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
	client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(stream.String()))
	})
	msg, err := openai.New(client, "gpt-4.1", openai.WithStream(func(string) {})).Next(context.Background(), conversation(), nil)
	require.NoError(t, err, "4000 tokens, streamed")
	assert.Equal(t, strings.Repeat(" w", 4000), msg.Text)
}
