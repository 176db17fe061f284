package openai_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/openai"
)

// An Azure endpoint with a user and password (a gateway behind basic
// auth: https://user:pass@gateway/) has net/http send them as an
// Authorization Basic header, which it adds below every middleware, so the
// guard never saw them: an error response echoing the header, or the
// password, came back whole in the error's text. The password and the
// header's token are redacted as the key is.
func TestAttackBaseURLPasswordEchoedIsRedacted(t *testing.T) {
	const user, pass = "gateway-user", "GatewayPassw0rd-HOSTILE-42"
	token := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization")
		raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(got, "Basic "))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"type":"invalid_request_error","code":"%s","message":"refused %s (%s)"}}`, got, got, raw)
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "://", "://"+user+":"+pass+"@", 1)
	client := sdk.NewClient(azure.WithEndpoint(base, "2024-10-21"), azure.WithAPIKey(hostileKey),
		option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
	for name, stream := range map[string]bool{"chat": false, "stream": true} {
		var opts []openai.Option
		if stream {
			opts = append(opts, openai.WithStream(func(string) {}))
		}
		_, err := openai.New(client, "gpt-4.1", opts...).Next(context.Background(), conversation(), nil)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "refused", name)
		assert.NotContains(t, err.Error(), pass, name)
		assert.NotContains(t, err.Error(), token, name)
	}
}
