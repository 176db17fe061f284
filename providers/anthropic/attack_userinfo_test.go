package anthropic_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

// A base URL with a user and password (a gateway behind basic auth:
// https://user:pass@gateway/) has net/http send them as an Authorization
// Basic header, which it adds below every middleware, so the guard never
// saw them: an error response echoing the header, or the password, came
// back whole in the error's text. The password and the header's token are
// redacted as the key is.
func TestAttackBaseURLPasswordEchoedIsRedacted(t *testing.T) {
	const user, pass = "gateway-user", "GatewayPassw0rd-HOSTILE-42"
	token := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization")
		raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(got, "Basic "))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"authentication_error","message":"refused %s (%s)"},"request_id":"%s"}`, got, raw, got)
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "://", "://"+user+":"+pass+"@", 1) + "/"
	for name, stream := range map[string]bool{"messages": false, "stream": true} {
		client := sdk.NewClient(option.WithBaseURL(base), option.WithAPIKey(hostileKey),
			option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
		var opts []anthropic.Option
		if stream {
			opts = append(opts, anthropic.WithStream(func(string) {}))
		}
		_, err := anthropic.New(client, "claude-sonnet-4-5", opts...).Next(context.Background(), conversation(), nil)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "refused", name)
		assert.NotContains(t, err.Error(), pass, name)
		assert.NotContains(t, err.Error(), token, name)
	}
}
