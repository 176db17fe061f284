package gemini_test

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
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool's result with bytes that are not UTF-8 (a binary file, a cut
// stream, a lone surrogate as WTF-8 spells it, escaped in structured
// output, which goes to Gemini as JSON) must not break the next request:
// the API refuses a body that is not UTF-8 JSON, and the run would end on
// a result a hostile file can hold. The request's body is valid UTF-8 and
// valid JSON.
func TestAttackS29BrokenUTF8ResultKeepsTheRequestValid(t *testing.T) {
	const broken = "ok \xff\xfe then \xed\xa0\x80 and \xe2\x82"
	var body []byte
	model := hostileModel(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"code":400,"message":"stop here","status":"INVALID_ARGUMENT"}}`)
	}, nil)
	conv := append(conversation(),
		agent.Message{Role: agent.RoleAssistant, Calls: []tool.Call{
			{ID: "c1", Name: "read_file", Args: json.RawMessage(`{"path":"a.bin"}`)},
			{ID: "c2", Name: "read_file", Args: json.RawMessage(`{}`)},
		}},
		agent.Message{Role: agent.RoleTool, Results: []*tool.Result{
			{CallID: "c1", Tool: "read_file", Content: []tool.Content{tool.TextContent(broken)}},
			{CallID: "c2", Tool: "read_file", Output: json.RawMessage(`{"s":"\ud800 \udfff"}`)},
		}})
	_, err := model.Next(context.Background(), conv, nil)
	require.Error(t, err)
	require.NotEmpty(t, body)
	assert.True(t, utf8.Valid(body), "the request is not UTF-8")
	assert.True(t, json.Valid(body), "the request is not JSON")
	assert.Contains(t, string(body), "then", "the request holds the result")
}
