package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/providers/openai"
)

// An error response's body is redacted and its error bounded
// (TestHostileEndpointErrorEchoingTheKeyIsRedacted), but a 200 answer the
// adapter then refuses was not: its errors quote the endpoint's id and,
// for a failed response, its error message, as sent. An endpoint that
// echoed the key there (and a MiB behind it) had it in the error's text,
// and so in every log of it.
func TestAttackS17RefusedAnswerEchoingTheKeyIsRedacted(t *testing.T) {
	pad := strings.Repeat("x", 1<<20)
	answer := func(body func(key string) string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, body(sentKey(r)))
		}
	}
	noChoices := answer(func(key string) string {
		return `{"id":"chatcmpl-` + key + pad + `","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[]}`
	})
	dupIDs := answer(func(key string) string {
		return `{"id":"chatcmpl-` + key + `","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[` +
			`{"id":"` + key + pad + `","type":"function","function":{"name":"a","arguments":"{}"}},{"id":"` + key + pad + `","type":"function","function":{"name":"b","arguments":"{}"}}]}}]}`
	})
	failed := answer(func(key string) string {
		return `{"id":"resp_` + key + `","object":"response","created_at":1,"status":"failed","model":"gpt-5","output":[],"error":{"code":"server_error","message":"key ` + key + ` refused ` + pad + `"}}`
	})
	for name, model := range map[string]agent.Model{
		"chat, no choices":   openai.New(hostileClient(t, noChoices), "gpt-4.1"),
		"chat, repeated ids": openai.New(hostileClient(t, dupIDs), "gpt-4.1"),
		"responses, failed":  openai.NewResponses(hostileClient(t, failed), "gpt-5"),
	} {
		_, err := model.Next(context.Background(), conversation(), nil)
		require.Error(t, err, name)
		assert.NotContains(t, err.Error(), hostileKey, name)
		assert.Less(t, len(err.Error()), 8<<10, name)
	}
}
