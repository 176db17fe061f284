package openai_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/openai"
)

// Chat streaming passes text deltas on and returns the whole turn, the
// tool call's arguments joined from their pieces.
func TestChatStreaming(t *testing.T) {
	client, rp := newClient(t, step{200, "stream_tool_calls.sse"})
	var deltas []string
	model := openai.New(client, "gpt-4.1", openai.WithStream(func(s string) { deltas = append(deltas, s) }))
	msg, err := model.Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"Checking ", "Lisbon."}, deltas)
	assert.Equal(t, "Checking Lisbon.", msg.Text)
	require.Len(t, msg.Calls, 1)
	assert.Equal(t, "call_S1x9Kq2", msg.Calls[0].ID)
	assert.JSONEq(t, `{"city":"Lisbon","unit":null}`, string(msg.Calls[0].Args))
	assert.Equal(t, true, rp.requests()[0]["stream"])
}

func TestResponsesStreaming(t *testing.T) {
	client, _ := newClient(t, step{200, "responses_stream.sse"})
	var deltas []string
	model := openai.NewResponses(client, "gpt-5", openai.WithResponsesStream(func(s string) { deltas = append(deltas, s) }))
	msg, err := model.Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"Lisbon is ", "sunny."}, deltas)
	assert.Equal(t, "Lisbon is sunny.", msg.Text)
	assert.Equal(t, openai.ResponsesFormat, msg.RawFormat)
	assert.Contains(t, string(msg.Raw), `"id":"msg_s1"`)
}
