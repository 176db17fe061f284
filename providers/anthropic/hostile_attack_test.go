package anthropic_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

const hostileKey = "sk-ant-api03-HOSTILEtest0123456789abcdef"

func hostileClient(t *testing.T, handler http.HandlerFunc) sdk.Client {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return sdk.NewClient(option.WithBaseURL(srv.URL+"/"), option.WithAPIKey(hostileKey),
		option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
}

// An error body that repeats the key the request carried (a proxy that
// says which key it refused, a forged answer) came back in the error's
// text, and so in every log of it. The key is redacted from the error:
// its text and the SDK's error it wraps.
func TestHostileEndpointErrorEchoingTheKeyIsRedacted(t *testing.T) {
	echo := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key %s"},"request_id":"%s"}`, r.Header.Get("X-Api-Key"), r.Header.Get("X-Api-Key"))
	}
	streamEcho := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"key %s overloaded\"}}\n\n", r.Header.Get("X-Api-Key"))
	}
	for name, model := range map[string]*anthropic.Model{
		"messages": anthropic.New(hostileClient(t, echo), "claude-sonnet-4-5"),
		"stream":   anthropic.New(hostileClient(t, streamEcho), "claude-sonnet-4-5", anthropic.WithStream(func(string) {})),
	} {
		_, err := model.Next(context.Background(), conversation(), nil)
		require.Error(t, err, name)
		assert.NotContains(t, err.Error(), hostileKey, name)
		assert.Contains(t, err.Error(), "[REDACTED]", name)
		var apiErr *sdk.Error
		if errors.As(err, &apiErr) && name == "messages" {
			assert.NotContains(t, apiErr.Error(), hostileKey, name)
			assert.NotContains(t, apiErr.RawJSON(), hostileKey, name)
		}
	}
}

// The SDK's accumulator takes a second message_start as the message,
// dropping what came before: the text already shown to the stream
// callback ("I paid 500 EUR.") was not in the turn the transcript records.
// A stream that starts its message twice is an error.
func TestHostileStreamStartingTwiceIsAnError(t *testing.T) {
	const start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"
	twice := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, start)
		fmt.Fprint(w, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
		fmt.Fprint(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"I paid 500 EUR.\"}}\n\n")
		fmt.Fprint(w, start)
		fmt.Fprint(w, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
		fmt.Fprint(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Nothing to do.\"}}\n\n")
		fmt.Fprint(w, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
		fmt.Fprint(w, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n")
		fmt.Fprint(w, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}
	var shown strings.Builder
	msg, err := anthropic.New(hostileClient(t, twice), "claude-sonnet-4-5", anthropic.WithStream(func(s string) { shown.WriteString(s) })).Next(context.Background(), conversation(), nil)
	require.Error(t, err, "turn %q; shown %q", msg.Text, shown.String())
	assert.Contains(t, err.Error(), "message_start")
}

// A response body is read whole by the SDK: an endpoint answering 64 MiB
// had it all read, decoded and returned as the model's turn; a stream that
// never ends grew the turn until the memory ran out. Reading stops at the
// adapter's bound (DefaultMaxResponseBytes, WithMaxResponseBytes).
func TestHostileEndpointHugeBodyIsBounded(t *testing.T) {
	huge := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"end_turn","content":[{"type":"text","text":"`)
		chunk := strings.Repeat("A", 1<<20)
		for range 64 {
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
		fmt.Fprint(w, `"}],"usage":{"input_tokens":1,"output_tokens":1}}`)
	}
	endless := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n")
		fmt.Fprint(w, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
		chunk := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + strings.Repeat("A", 64<<10) + "\"}}\n\n"
		for r.Context().Err() == nil {
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	msg, err := anthropic.New(hostileClient(t, huge), "claude-sonnet-4-5").Next(ctx, conversation(), nil)
	if assert.Error(t, err, "a turn of %d bytes", len(msg.Text)) {
		assert.ErrorIs(t, err, anthropic.ErrResponseTooLarge)
		assert.Contains(t, err.Error(), "33554432 bytes")
	}

	streamed := 0
	msg, err = anthropic.New(hostileClient(t, endless), "claude-sonnet-4-5", anthropic.WithStream(func(s string) { streamed += len(s) })).Next(ctx, conversation(), nil)
	if assert.Error(t, err, "a turn of %d bytes", len(msg.Text)) {
		assert.ErrorIs(t, err, anthropic.ErrResponseTooLarge)
	}
	assert.LessOrEqual(t, streamed, anthropic.DefaultMaxResponseBytes)
	require.NoError(t, ctx.Err(), "the bound stopped it, not the deadline")

	model, _ := newModelWith(t, []anthropic.Option{anthropic.WithMaxResponseBytes(100)}, step{200, "turn1_tool_use.json"})
	_, err = model.Next(ctx, conversation(), nil)
	require.ErrorIs(t, err, anthropic.ErrResponseTooLarge)
	assert.Contains(t, err.Error(), "anthropic.WithMaxResponseBytes")
}
