package anthropic_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
// adapter's bound (DefaultMaxResponseBytes, WithMaxResponseBytes), with an
// error naming it, and what reading took is bounded by it.
//
// The bound here is 1 MiB, set with WithMaxResponseBytes, and the
// endpoint sends four times as much. The default's 32 MiB made the stream
// case slow (over its own 60 s deadline under -race on a loaded machine):
// the SDK's accumulator adds each text delta to the block's text with a
// string concatenation (messageutil.go, cb.Text += event.Delta.Text),
// which copies the text so far for each delta, quadratic in the deltas:
// about 8 GiB copied for 32 MiB in deltas of 64 KiB, 8 MiB for 1 MiB.
func TestHostileEndpointHugeBodyIsBounded(t *testing.T) {
	const bound = 1 << 20
	chunk := strings.Repeat("A", 64<<10)
	huge := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"end_turn","content":[{"type":"text","text":"`)
		for range 4 * bound / len(chunk) {
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
		fmt.Fprint(w, `"}],"usage":{"input_tokens":1,"output_tokens":1}}`)
	}
	// Four times the bound and no message_stop, so that a stream read
	// past the bound ends in another error than ErrResponseTooLarge.
	long := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n")
		fmt.Fprint(w, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
		event := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + chunk + "\"}}\n\n"
		for range 4 * bound / len(chunk) {
			if _, err := fmt.Fprint(w, event); err != nil {
				return
			}
		}
	}
	streamed := 0
	for name, model := range map[string]*anthropic.Model{
		"message": anthropic.New(hostileClient(t, huge), "claude-sonnet-4-5", anthropic.WithMaxResponseBytes(bound)),
		"stream": anthropic.New(hostileClient(t, long), "claude-sonnet-4-5", anthropic.WithMaxResponseBytes(bound),
			anthropic.WithStream(func(s string) { streamed += len(s) })),
	} {
		var err error
		used := allocated(func() {
			_, err = model.Next(context.Background(), conversation(), nil)
		})
		t.Logf("%s: %d bytes allocated", name, used)
		require.Error(t, err, name)
		assert.ErrorIs(t, err, anthropic.ErrResponseTooLarge, name)
		assert.Contains(t, err.Error(), "1048576 bytes", name)
		assert.Contains(t, err.Error(), "anthropic.WithMaxResponseBytes", name)
		// A few copies of what was read, the SDK's concatenations of the
		// streamed text and its decoding: bounded by the bound, not by
		// the 4 MiB sent.
		assert.LessOrEqual(t, used, uint64(64*bound), "%s: bytes allocated to read %d bytes", name, bound)
	}
	assert.LessOrEqual(t, streamed, bound, "text shown from the stream")

	// The default bound (32 MiB) takes a recorded answer of a few KB that
	// a bound of 100 bytes refuses.
	model, _ := newModelWith(t, []anthropic.Option{anthropic.WithMaxResponseBytes(100)}, step{200, "turn1_tool_use.json"})
	_, err := model.Next(context.Background(), conversation(), nil)
	require.ErrorIs(t, err, anthropic.ErrResponseTooLarge)
	model, _ = newModel(t, step{200, "turn1_tool_use.json"})
	_, err = model.Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
}
