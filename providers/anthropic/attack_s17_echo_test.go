package anthropic_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

// An error response's body is redacted and its error bounded
// (TestHostileEndpointErrorEchoingTheKeyIsRedacted), but a 200 answer the
// adapter then refused was not: its error quotes the message's id and the
// repeated tool_use id as sent. An endpoint that echoed the key there
// (and a MiB behind it) had it in the error's text, and so in every log
// of it.
func TestAttackS17RefusedAnswerEchoingTheKeyIsRedacted(t *testing.T) {
	pad := strings.Repeat("x", 1<<20)
	client := hostileClient(t, func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("X-Api-Key")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"msg_%s","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[`+
			`{"type":"tool_use","id":"%s%s","name":"a","input":{}},{"type":"tool_use","id":"%s%s","name":"b","input":{}}],"usage":{"input_tokens":1,"output_tokens":1}}`,
			key, key, pad, key, pad)
	})
	_, err := anthropic.New(client, "claude-sonnet-4-5").Next(context.Background(), conversation(), nil)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), hostileKey)
	assert.Less(t, len(err.Error()), 8<<10)
}
