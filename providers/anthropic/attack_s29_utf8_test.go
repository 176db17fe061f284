package anthropic_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/providers/anthropic"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool's result with bytes that are not UTF-8 (a binary file, a cut
// stream, a lone surrogate as WTF-8 spells it, escaped in structured
// output) must not break the next request: the API refuses a body that
// is not UTF-8 JSON, and the run would end on a result a hostile file can
// hold. The request's body is valid UTF-8 and valid JSON.
func TestAttackS29BrokenUTF8ResultKeepsTheRequestValid(t *testing.T) {
	const broken = "ok \xff\xfe then \xed\xa0\x80 and \xe2\x82"
	var body []byte
	client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"stop here"}}`, http.StatusBadRequest)
	})
	conv := append(conversation(),
		agent.Message{Role: agent.RoleAssistant, Calls: []tool.Call{
			{ID: "toolu_1", Name: "read_file", Args: json.RawMessage(`{"path":"a.bin"}`)},
			{ID: "toolu_2", Name: "read_file", Args: json.RawMessage(`{}`)},
		}},
		agent.Message{Role: agent.RoleTool, Results: []*tool.Result{
			{CallID: "toolu_1", Tool: "read_file", Content: []tool.Content{tool.TextContent(broken)}},
			{CallID: "toolu_2", Tool: "read_file", Output: json.RawMessage(`{"s":"\ud800 \udfff"}`)},
		}})
	_, err := anthropic.New(client, "claude-sonnet-4-5").Next(context.Background(), conv, nil)
	require.Error(t, err)
	require.NotEmpty(t, body)
	assert.True(t, utf8.Valid(body), "the request is not UTF-8")
	assert.True(t, json.Valid(body), "the request is not JSON")
	assert.Contains(t, string(body), "then", "the request holds the result")
}
