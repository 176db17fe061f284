package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

// streamCap is the response bound of these tests: small, so that what the
// old code made of a stream at the bound (quadratic in it) stays quick to
// show, and the streams below fill it.
const streamCap = 256 << 10

// streamMessageStart opens a message with no content.
var streamMessageStart = sse("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`)

// streamMessageEnd closes a message.
var streamMessageEnd = sse("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`) +
	sse("message_stop", `{"type":"message_stop"}`)

// fill is as many copies of event as fit in streamCap beside fixed bytes.
func fill(fixed int, event string) (string, int) {
	n := (streamCap - fixed - 1024) / len(event)
	return strings.Repeat(event, n), n
}

// streamModel is a Model of an endpoint that streams body, bounded by
// streamCap.
func streamModel(t *testing.T, body string) *anthropic.Model {
	t.Helper()
	require.LessOrEqual(t, len(body), streamCap, "the stream fits the bound")
	return anthropic.New(hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(body))
	}), "claude-sonnet-4-5", anthropic.WithStream(func(string) {}), anthropic.WithMaxResponseBytes(streamCap))
}

// The SDK's accumulator adds each text, thinking and signature delta to
// its block's string (cb.Text += delta), copying all of it each time, and
// merges each message_delta into the whole message's JSON: a stream of
// small deltas allocated the square of its length (1 MiB of 120-byte text
// deltas: 1.23 GB; at the default bound of 32 MiB about a terabyte). Each
// stream below fills the bound and is a valid turn; what reading it takes
// is bounded by the stream (a few copies of it).
func TestAttackS29StreamDeltasAreLinear(t *testing.T) {
	piece := strings.Repeat("All work and no play makes Jack a dull boy. ", 2) // 88 bytes
	sig := strings.Repeat("EqQBCgIYAhIM", 8)                                   // 96 bytes
	textStart := sse("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	thinkingStart := sse("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
	stop := sse("content_block_stop", `{"type":"content_block_stop","index":0}`)
	fixed := len(streamMessageStart) + len(thinkingStart) + len(stop) + len(streamMessageEnd)

	textDeltas, n := fill(fixed, sse("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, piece)))
	longText := strings.Repeat(piece, n)
	thinkingDeltas, _ := fill(fixed, sse("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":%q}}`, piece)))
	signatureDeltas, _ := fill(fixed, sse("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":%q}}`, sig)))

	// A message_start whose content is half the bound, then message_delta
	// events to the bound: each was merged into the message's JSON.
	half := strings.Repeat(piece, streamCap/2/len(piece))
	bigStart := sse("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"`+half+`"}],"usage":{"input_tokens":1,"output_tokens":1}}}`)
	messageDeltas, _ := fill(len(bigStart)+len(streamMessageEnd), sse("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`))

	for _, tc := range []struct {
		name, body, text string
	}{
		{"text_delta", streamMessageStart + textStart + textDeltas + stop + streamMessageEnd, longText},
		{"thinking_delta", streamMessageStart + thinkingStart + thinkingDeltas + stop + streamMessageEnd, ""},
		{"signature_delta", streamMessageStart + thinkingStart + signatureDeltas + stop + streamMessageEnd, ""},
		{"message_delta", bigStart + messageDeltas + streamMessageEnd, half},
	} {
		model := streamModel(t, tc.body)
		var msg agent.Message
		var err error
		used := allocated(func() {
			msg, err = model.Next(context.Background(), conversation(), nil)
		})
		t.Logf("%s: %d bytes allocated to read a stream of %d bytes", tc.name, used, len(tc.body))
		if assert.NoError(t, err, tc.name) {
			assert.True(t, msg.Text == tc.text, "%s: the turn's text (%d bytes, want %d)", tc.name, len(msg.Text), len(tc.text))
		}
		assert.LessOrEqual(t, used, uint64(64*len(tc.body)+(8<<20)), "%s: bytes allocated to read a stream of %d bytes", tc.name, len(tc.body))
	}
}

// A content_block_stop made the SDK write the block's text into its JSON
// again, so a block of 128 KiB stopped a thousand times allocated the
// block a thousand times over; and a delta after its block's stop was
// added to the turn all the same. A block is stopped once: a second stop,
// or a delta after the stop, is an error naming the block.
func TestAttackS29StreamBlockStoppedTwiceIsAnError(t *testing.T) {
	piece := strings.Repeat("All work and no play makes Jack a dull boy. ", 2)
	bigText := strings.Repeat(piece, streamCap/2/len(piece))
	textStart := sse("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	bigDelta := sse("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, bigText))
	stop := sse("content_block_stop", `{"type":"content_block_stop","index":0}`)
	head := streamMessageStart + textStart + bigDelta + stop
	stops, _ := fill(len(head)+len(streamMessageEnd), stop)

	for _, tc := range []struct {
		name, body, want string
	}{
		{"stopped again and again", head + stops + streamMessageEnd, "a second content_block_stop for content block 0"},
		{"a delta after the stop", head + sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" and more"}}`) + streamMessageEnd, "a text_delta for content block 0 after its content_block_stop"},
		{"a thinking delta after the stop", head + sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"more"}}`) + streamMessageEnd, "a thinking_delta for content block 0 after its content_block_stop"},
	} {
		model := streamModel(t, tc.body)
		var err error
		used := allocated(func() {
			_, err = model.Next(context.Background(), conversation(), nil)
		})
		t.Logf("%s: %d bytes allocated to read a stream of %d bytes", tc.name, used, len(tc.body))
		if assert.Error(t, err, tc.name) {
			assert.Contains(t, err.Error(), tc.want, tc.name)
		}
		assert.LessOrEqual(t, used, uint64(64*len(tc.body)+(8<<20)), "%s: bytes allocated to read a stream of %d bytes", tc.name, len(tc.body))
	}
}

// The turn of a stream is what the SDK's accumulator makes of it, byte for
// byte: its text, its calls and the Raw sent back next turn, for streams of
// every kind of block and delta (thinking with its signature, citations,
// tool input in pieces, server tools, a block type and a delta type the
// SDK does not know, blocks open at once, a block never stopped).
func TestStreamedTurnIsTheSDKAccumulatorsTurn(t *testing.T) {
	answer, err := os.ReadFile(filepath.Join("testdata", "stream_answer.sse"))
	require.NoError(t, err)
	ev := func(typ, data string) string { return sse(typ, data) }
	delta := func(i int, d string) string {
		return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, i, d))
	}
	stop := func(i int) string {
		return ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
	}
	everything := streamMessageStart +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`) +
		delta(0, `{"type":"thinking_delta","thinking":"Let me "}`) + delta(0, `{"type":"thinking_delta","thinking":"look \u003cit\u003e up."}`) +
		delta(0, `{"type":"signature_delta","signature":"EqQB"}`) + delta(0, `{"type":"signature_delta","signature":"CgIYAhIM"}`) + stop(0) +
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va"}}`) + stop(1) +
		ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"text","text":"Pre: ","citations":[]}}`) +
		ev("content_block_start", `{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`) +
		delta(2, `{"type":"text_delta","text":"Lisbon is 21°C "}`) + delta(3, `{"type":"input_json_delta","partial_json":"{\"city\": "}`) +
		delta(2, `{"type":"citations_delta","citation":{"type":"char_location","cited_text":"21°C","document_index":0,"document_title":"w","start_char_index":0,"end_char_index":4}}`) +
		delta(2, `{"type":"text_delta","text":""}`) + delta(2, `{"type":"text_delta","text":"and \"sunny\".\n"}`) +
		delta(3, `{"type":"input_json_delta","partial_json":"\"Lisbon\"}"}`) + stop(3) + stop(2) +
		ev("content_block_start", `{"type":"content_block_start","index":4,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}`) +
		delta(4, `{"type":"input_json_delta","partial_json":"{\"query\":\"lisbon\"}"}`) + stop(4) +
		ev("content_block_start", `{"type":"content_block_start","index":5,"content_block":{"type":"mystery_block","x":{"y":[1,2]}}}`) +
		delta(5, `{"type":"mystery_delta","z":1}`) + stop(5) +
		ev("content_block_start", `{"type":"content_block_start","index":6,"content_block":{"type":"text","text":""}}`) +
		delta(6, `{"type":"text_delta","text":"never stopped"}`) +
		ev("ping", `{"type":"ping"}`) + streamMessageEnd
	startWithContent := sse("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Already "}],"usage":{"input_tokens":1,"output_tokens":1}}}`) +
		delta(0, `{"type":"text_delta","text":"here."}`) + stop(0) + streamMessageEnd

	for name, body := range map[string]string{"stream_answer.sse": string(answer), "every block": everything, "content in message_start": startWithContent} {
		t.Run(name, func(t *testing.T) {
			// What the SDK's accumulator makes of the events.
			var want sdk.Message
			for _, line := range strings.Split(body, "\n") {
				data, ok := strings.CutPrefix(line, "data: ")
				if !ok {
					continue
				}
				var e sdk.MessageStreamEventUnion
				require.NoError(t, json.Unmarshal([]byte(data), &e))
				require.NoError(t, want.Accumulate(e))
			}
			var wantContent struct {
				Content json.RawMessage `json:"content"`
			}
			require.NoError(t, json.Unmarshal([]byte(want.RawJSON()), &wantContent))
			var wantText []string
			for _, b := range want.Content {
				if b.Type == "text" && b.Text != "" {
					wantText = append(wantText, b.Text)
				}
			}
			wantCalls, err := wire.Anthropic.Calls([]byte(want.RawJSON()))
			require.NoError(t, err)

			var shown strings.Builder
			msg, err := anthropic.New(hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte(body))
			}), "claude-sonnet-4-5", anthropic.WithStream(func(s string) { shown.WriteString(s) })).Next(context.Background(), conversation(), nil)
			require.NoError(t, err)
			assert.Equal(t, string(wantContent.Content), string(msg.Raw))
			assert.Equal(t, strings.Join(wantText, "\n"), msg.Text)
			assert.Equal(t, wantCalls, msg.Calls)
			assert.NotEmpty(t, msg.Text)
		})
	}
}
