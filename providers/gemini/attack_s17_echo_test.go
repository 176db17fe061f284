package gemini_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An error response's body is redacted and its error bounded
// (TestHostileEndpointErrorEchoingTheKeyIsRedacted), but a 200 answer the
// adapter then refused was not: its errors quote the response id, a
// candidate's finish message, a blocked prompt's reason and a repeated
// call id as sent. An endpoint that echoed the key there (and a MiB
// behind it) had it in the error's text, and so in every log of it.
func TestAttackS17RefusedAnswerEchoingTheKeyIsRedacted(t *testing.T) {
	pad := strings.Repeat("x", 1<<20)
	answer := func(body func(key string) string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, body(r.Header.Get("X-Goog-Api-Key")))
		}
	}
	for name, handler := range map[string]http.HandlerFunc{
		"no candidates": answer(func(key string) string {
			return `{"responseId":"` + key + pad + `","candidates":[]}`
		}),
		"blocked": answer(func(key string) string {
			return `{"promptFeedback":{"blockReason":"OTHER","blockReasonMessage":"key ` + key + pad + `"},"candidates":[]}`
		}),
		"finish message": answer(func(key string) string {
			return `{"candidates":[{"finishReason":"SAFETY","finishMessage":"key ` + key + pad + `"}]}`
		}),
		"repeated ids": answer(func(key string) string {
			return `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"` + key + pad + `","name":"a","args":{}}},{"functionCall":{"id":"` + key + pad + `","name":"b","args":{}}}]}}]}`
		}),
	} {
		_, err := hostileModel(t, handler, nil).Next(context.Background(), conversation(), nil)
		require.Error(t, err, name)
		assert.NotContains(t, err.Error(), hostileKey, name)
		assert.Less(t, len(err.Error()), 8<<10, name)
	}
}
