package openai_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/providers/openai"
)

const hostileKey = "sk-proj-HOSTILEtest0123456789abcdef"

// hostileClient is a client of handler, with the key hostileKey.
func hostileClient(t *testing.T, handler http.HandlerFunc) sdk.Client {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return sdk.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey(hostileKey),
		option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
}

// sentKey is the key a request carried, as a server that echoes it reads it.
func sentKey(r *http.Request) string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// An error body that repeats the key the request carried (a proxy or
// OpenAI-compatible server that says which key it refused, a forged
// answer) came back in the error's text, and so in every log of it. The
// key is redacted from the error: its text and the SDK's error it wraps.
func TestHostileEndpointErrorEchoingTheKeyIsRedacted(t *testing.T) {
	echo := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Invalid key. Received API Key = %s","type":"auth_error","code":"%s"}}`, sentKey(r), sentKey(r))
	}
	streamEcho := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"error\":{\"message\":\"quota of key %s exceeded\"}}\n\n", sentKey(r))
	}
	client := hostileClient(t, echo)
	streaming := hostileClient(t, streamEcho)
	for name, model := range map[string]agent.Model{
		"chat":             openai.New(client, "gpt-4.1"),
		"responses":        openai.NewResponses(client, "gpt-5"),
		"chat stream":      openai.New(streaming, "gpt-4.1", openai.WithStream(func(string) {})),
		"responses stream": openai.NewResponses(streaming, "gpt-5", openai.WithResponsesStream(func(string) {})),
	} {
		_, err := model.Next(context.Background(), conversation(), nil)
		require.Error(t, err, name)
		assert.NotContains(t, err.Error(), hostileKey, name)
		assert.NotContains(t, err.Error(), hostileKey[8:], name)
		assert.Contains(t, err.Error(), "[REDACTED]", name)
		var apiErr *sdk.Error
		if errors.As(err, &apiErr) {
			assert.NotContains(t, apiErr.Error(), hostileKey, name)
			assert.NotContains(t, apiErr.RawJSON(), hostileKey, name)
		}
	}
}

// The SDK's accumulator refuses a stream chunk that does not fit the ones
// before (another completion's id, a tool-call index far past the others)
// and says so only in AddChunk's result, which was not read: the chunk's
// text had been shown to the stream callback, and its tool calls and text
// were silently left out of the turn, so what the user watched ("paid")
// and what the transcript records differed. Such a stream is an error.
func TestHostileStreamChunkTheAccumulatorRefusesIsAnError(t *testing.T) {
	mixed := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Checking. "}}]}`+"\n\n")
		fmt.Fprint(w, `data: {"id":"c2","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"I paid 500 EUR.","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"pay","arguments":"{}"}}]}}]}`+"\n\n")
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
	var shown strings.Builder
	msg, err := openai.New(hostileClient(t, mixed), "gpt-4.1", openai.WithStream(func(s string) { shown.WriteString(s) })).Next(context.Background(), conversation(), nil)
	require.Error(t, err, "turn %q with %d calls; shown %q", msg.Text, len(msg.Calls), shown.String())
	assert.Contains(t, err.Error(), "chunk #2")
	assert.NotContains(t, shown.String(), "I paid", "the refused chunk's text is not shown")
}

// A response body is read whole by the SDK: an endpoint answering 64 MiB
// (a forged or broken answer) had it all read, decoded and returned as the
// model's turn; a stream that never ends grew the turn until the memory
// ran out. Reading stops at the adapter's bound (DefaultMaxResponseBytes).
func TestHostileEndpointHugeBodyIsBounded(t *testing.T) {
	huge := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c1","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"`)
		chunk := strings.Repeat("A", 1<<20)
		for range 64 {
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
		fmt.Fprint(w, `"}}]}`)
	}
	endless := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"` + strings.Repeat("A", 64<<10) + "\"}}]}\n\n"
		for r.Context().Err() == nil {
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	msg, err := openai.New(hostileClient(t, huge), "gpt-4.1").Next(ctx, conversation(), nil)
	if assert.Error(t, err, "a turn of %d bytes", len(msg.Text)) {
		assert.ErrorIs(t, err, openai.ErrResponseTooLarge)
		assert.Contains(t, err.Error(), "33554432 bytes")
	}

	streamed := 0
	msg, err = openai.New(hostileClient(t, endless), "gpt-4.1", openai.WithStream(func(s string) { streamed += len(s) })).Next(ctx, conversation(), nil)
	require.Error(t, err, "a turn of %d bytes", len(msg.Text))
	assert.ErrorIs(t, err, openai.ErrResponseTooLarge)
	assert.LessOrEqual(t, streamed, openai.DefaultMaxResponseBytes)
	require.NoError(t, ctx.Err(), "the bound stopped it, not the deadline")

	// The bound is the caller's to set: a recorded answer of a few KB
	// passes the default and fails a bound of 100 bytes.
	client, _ := newClient(t, step{200, "turn1_tool_calls.json"}, step{200, "turn1_tool_calls.json"})
	_, err = openai.New(client, "gpt-4.1", openai.WithMaxResponseBytes(100)).Next(ctx, conversation(), nil)
	require.ErrorIs(t, err, openai.ErrResponseTooLarge)
	assert.Contains(t, err.Error(), "openai.WithMaxResponseBytes")
	_, err = openai.New(client, "gpt-4.1").Next(ctx, conversation(), nil)
	require.NoError(t, err)
	client, _ = newClient(t, step{200, "responses_turn1.json"})
	_, err = openai.NewResponses(client, "gpt-5", openai.WithResponsesMaxResponseBytes(100)).Next(ctx, conversation(), nil)
	require.ErrorIs(t, err, openai.ErrResponseTooLarge)
}
