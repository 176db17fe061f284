package httptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
)

// A credential with white space around it (an environment variable set
// from a file or a copied token: "sk-live-...\n", "sk-live-... ") was
// masked as it is, white space included, but net/http trims a header
// value's white space when it writes it: the server got and echoed the
// bare token, which no mask matched, and the model read it. A newline
// made the request fail instead (net/http refuses it in a header) as a
// retryable network failure. The credential is now used and masked
// without the white space around it.
func TestAttackS15CredentialWithWhiteSpaceAroundIt(t *testing.T) {
	const bare = "sk-live-7Hq2Zp9Lw4Xv"
	srv, _ := recorder(t, func(w http.ResponseWriter, r *http.Request) {
		// An httpbin-style echo of the request's headers.
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "you sent "+r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
	})
	for _, cred := range []string{bare + " ", " " + bare, bare + "\t", bare + "\n", "\t" + bare + "\r\n"} {
		for _, auth := range []httptool.Auth{{Scheme: "Bearer"}, {Header: "X-Api-Key"}} {
			for _, src := range []string{"env", "provider"} {
				name := fmt.Sprintf("%q %s %s", cred, auth.Header+auth.Scheme, src)
				t.Run(name, func(t *testing.T) {
					a := auth
					var opts []httptool.Option
					if src == "env" {
						t.Setenv("HTTPTOOL_S15_TOKEN", cred)
						a.Env = "HTTPTOOL_S15_TOKEN"
					} else {
						a.Provider = "vault"
						opts = append(opts, httptool.WithCredential("vault", func(context.Context) (string, error) { return cred, nil }))
					}
					tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: srv.URL + "/", Auth: &a}, opts...)
					var mu sync.Mutex
					var streamed strings.Builder
					ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) {
						mu.Lock()
						streamed.Write(ev.Data)
						mu.Unlock()
					})
					res, err := tl.Run(ctx, tool.Call{Name: "api", Args: json.RawMessage(`{}`)})
					require.NoError(t, err)
					dump, _ := json.Marshal(res)
					assert.NotContains(t, string(dump), bare, "the result shows the credential")
					mu.Lock()
					assert.NotContains(t, streamed.String(), bare, "the stream shows the credential")
					mu.Unlock()
					assert.Contains(t, res.Text(), "you sent ")
					assert.Contains(t, res.Text(), httptool.Redacted)
				})
			}
		}
	}
}
