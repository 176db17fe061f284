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

// chatChunk is one chunk of a chat completion stream, of the choices given
// as JSON.
func chatChunk(choices string) string {
	return fmt.Sprintf("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764017700,\"model\":\"gpt-4.1\",\"choices\":[%s]}\n\n", choices)
}

func choiceDelta(index int, text string) string {
	return fmt.Sprintf(`{"index":%d,"delta":{"content":%q},"finish_reason":null}`, index, text)
}

// A chat stream's text was shown from each chunk's first choice, whatever
// its index, while the turn is choice 0 of what the chunks add up to: an
// endpoint that sent "I paid 500 EUR." as choice 1 (first in its chunk,
// or alone) had it shown and not recorded. Only choice 0's text is shown,
// all of it.
func TestAttackS17ChatStreamShowsOnlyTheTurnsChoice(t *testing.T) {
	for name, body := range map[string]string{
		"another choice alone":       chatChunk(choiceDelta(0, "Nothing to do.")) + chatChunk(choiceDelta(1, " I paid 500 EUR.")) + "data: [DONE]\n\n",
		"another choice first":       chatChunk(choiceDelta(1, "I paid 500 EUR. ")+","+choiceDelta(0, "Nothing to do.")) + "data: [DONE]\n\n",
		"the turn's choice 2nd only": chatChunk(choiceDelta(0, "Nothing ")) + chatChunk(choiceDelta(1, "x")+","+choiceDelta(0, "to do.")) + "data: [DONE]\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, body)
			})
			var shown strings.Builder
			msg, err := openai.New(client, "gpt-4.1", openai.WithStream(func(s string) { shown.WriteString(s) })).
				Next(context.Background(), conversation(), nil)
			require.NoError(t, err)
			assert.Equal(t, "Nothing to do.", msg.Text)
			assert.Equal(t, msg.Text, shown.String(), "what the user watched is what the turn records")
		})
	}
}

// responsesEvent is one server-sent event of a Responses stream.
func responsesEvent(typ, data string) string {
	return fmt.Sprintf("event: %s\ndata: %s\n\n", typ, data)
}

func textDelta(seq int, text string) string {
	return responsesEvent("response.output_text.delta", fmt.Sprintf(`{"type":"response.output_text.delta","sequence_number":%d,"item_id":"msg_1","output_index":0,"content_index":0,"delta":%q,"logprobs":[]}`, seq, text))
}

func completed(seq int, text string) string {
	return responsesEvent("response.completed", fmt.Sprintf(`{"type":"response.completed","sequence_number":%d,"response":{"id":"resp_1","object":"response","created_at":1764017700,"status":"completed","model":"gpt-5","output":[{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":%q}]}]}}`, seq, text))
}

// A Responses stream's text deltas are shown to the user as they come
// (WithResponsesStream), but the turn the transcript records is the
// response of the stream's last response.completed event, which the
// endpoint writes apart from the deltas: the user watched "I paid 500
// EUR." while the transcript, the next turn's history and the audit said
// "Nothing to do." (the mismatch TestHostileStreamStartingTwiceIsAnError
// closed for Anthropic). A stream whose shown text is not its response's,
// or that goes on after its response, is an error.
func TestAttackS17ResponsesStreamShowsWhatTheTurnRecords(t *testing.T) {
	created := responsesEvent("response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1764017700,"status":"in_progress","model":"gpt-5","output":[]}}`)
	for name, body := range map[string]string{
		"deltas unlike the response": created + textDelta(1, "I paid ") + textDelta(2, "500 EUR.") + completed(3, "Nothing to do."),
		"a second response":          created + textDelta(1, "I paid 500 EUR.") + completed(2, "I paid 500 EUR.") + completed(3, "Nothing to do."),
		"deltas after the response":  created + textDelta(1, "Nothing to do.") + completed(2, "Nothing to do.") + textDelta(3, " I paid 500 EUR."),
	} {
		t.Run(name, func(t *testing.T) {
			client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, body)
			})
			var shown strings.Builder
			msg, err := openai.NewResponses(client, "gpt-5", openai.WithResponsesStream(func(s string) { shown.WriteString(s) })).
				Next(context.Background(), conversation(), nil)
			require.Error(t, err, "turn %q; shown %q", msg.Text, shown.String())
			assert.Contains(t, err.Error(), "stream")
		})
	}

	// An honest stream still reads as before; a server that sends the text
	// with the response alone, or only its start as deltas, has the rest
	// shown at the end.
	for name, body := range map[string]string{
		"deltas":         created + textDelta(1, "Lisbon is ") + textDelta(2, "sunny.") + completed(3, "Lisbon is sunny."),
		"no deltas":      created + completed(1, "Lisbon is sunny."),
		"deltas cut":     created + textDelta(1, "Lisbon ") + completed(2, "Lisbon is sunny."),
		"no text at all": created + completed(1, ""),
	} {
		t.Run(name, func(t *testing.T) {
			client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, body)
			})
			var shown strings.Builder
			msg, err := openai.NewResponses(client, "gpt-5", openai.WithResponsesStream(func(s string) { shown.WriteString(s) })).
				Next(context.Background(), conversation(), nil)
			require.NoError(t, err)
			assert.Equal(t, msg.Text, shown.String())
			if name != "no text at all" {
				assert.Equal(t, "Lisbon is sunny.", msg.Text)
			}
		})
	}
}
