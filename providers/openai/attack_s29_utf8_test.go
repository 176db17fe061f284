package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/providers/openai"
	"github.com/toolbelt-go/toolbelt/tool"
)

// brokenText is what a tool may return from a binary file or a cut
// stream: a byte that starts no character, a lone surrogate as WTF-8
// spells it, a character cut at its end.
const brokenText = "ok \xff\xfe then \xed\xa0\x80 and \xe2\x82"

// brokenTurn is a conversation whose last tool result holds brokenText,
// as its text and in structured output that escapes a lone surrogate.
func brokenTurn() []agent.Message {
	conv := conversation()
	c := tool.Call{ID: "call_1", Name: "read_file", Args: json.RawMessage(`{"path":"a.bin"}`)}
	conv = append(conv,
		agent.Message{Role: agent.RoleAssistant, Calls: []tool.Call{c, {ID: "call_2", Name: "read_file", Args: json.RawMessage(`{}`)}}},
		agent.Message{Role: agent.RoleTool, Results: []*tool.Result{
			{CallID: "call_1", Tool: "read_file", Content: []tool.Content{tool.TextContent(brokenText)}},
			{CallID: "call_2", Tool: "read_file", Output: json.RawMessage(`{"s":"\ud800 \udfff"}`)},
		}})
	return conv
}

// A tool's result with bytes that are not UTF-8 must not break the next
// request: the provider refuses a body that is not UTF-8 JSON, and the
// run would end on a result a hostile file can hold. The request's body
// is valid UTF-8 and valid JSON, for both APIs.
func TestAttackS29BrokenUTF8ResultKeepsTheRequestValid(t *testing.T) {
	var mu sync.Mutex
	var bodies [][]byte
	client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		http.Error(w, `{"error":{"message":"stop here"}}`, http.StatusBadRequest)
	})
	_, err := openai.New(client, "gpt-4.1").Next(context.Background(), brokenTurn(), nil)
	require.Error(t, err)
	_, err = openai.NewResponses(client, "gpt-5").Next(context.Background(), brokenTurn(), nil)
	require.Error(t, err)
	require.Len(t, bodies, 2)
	for i, b := range bodies {
		assert.True(t, utf8.Valid(b), "request #%d is not UTF-8", i)
		assert.True(t, json.Valid(b), "request #%d is not JSON", i)
		assert.Contains(t, string(b), "then", "request #%d holds the result", i)
	}
}
