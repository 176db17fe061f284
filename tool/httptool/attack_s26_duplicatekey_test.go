package httptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
)

// An endpoint that writes its JSON answer by hand echoes the request's URL
// (as httpbin's /anything does), where the config's API key is
// percent-encoded (a base64 key's '/', '+' and '='), and splices the
// model's argument in as it came. The model's argument closes the string
// and repeats the key that holds the URL: the body is valid JSON with the
// key twice, and a JSON decoder keeps the last one. Masking decoded the
// body, found no secret in what the decoder kept, and returned the
// server's text as it was, with the first "url" and the key in it: the
// model read the key in the structured output (an MCP client reads it in
// the result's text block too).
func TestAttackS26DuplicateKeyHidesTheKeyFromMasking(t *testing.T) {
	const key = "AbC/dEf+GhI=jKl0"
	srv, _ := recorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"url":%q,"q":"%s"}`, r.URL.String(), r.URL.Query().Get("q"))
	})
	tl := newTool(t, tool.Spec{InputSchema: schema(`"q":{"type":"string"}`)},
		httptool.Config{URL: srv.URL + "/anything?api_key=" + "AbC%2FdEf%2BGhI%3DjKl0", Query: map[string]string{"q": "{q}"}})
	for _, q := range []string{
		`x","url":"y`,                 // the key repeated after the echo
		`x","url":{"a":"b"},"z":"`,    // with a value of another type
		`x","url":"y","url":"\u0079`,  // three times, the last escaped
		`x","u\u0072l":"y`,            // the repeat spelt with an escape
		`x","more":{"url":"y"},"z":"`, // a key of the same name elsewhere repeats nothing
	} {
		args, _ := json.Marshal(map[string]string{"q": q})
		res, err := tl.Run(context.Background(), tool.Call{Name: "api", Args: args})
		require.NoError(t, err)
		require.NotNil(t, res)
		require.True(t, json.Valid(res.Output), "%s", res.Output)
		assert.NotContains(t, string(res.Output), "AbC%2FdEf%2BGhI%3DjKl0", "the API key reached the model in the structured output: %s", res.Output)
		assert.NotContains(t, string(res.Output), key)
	}
}
