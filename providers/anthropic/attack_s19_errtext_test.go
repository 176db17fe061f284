package anthropic_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

// failures are the ways an endpoint fails a request: each echoes what the
// request carried (its headers, and the basic credentials decoded) where
// it can.
var failures = map[string]http.HandlerFunc{
	"401 json": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"authentication_error","message":%q}}`, echo(r))
	},
	"500 text": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, echo(r))
	},
	"200 broken json": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%q,"content":[`, echo(r))
	},
	"200 cut body": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100000")
		fmt.Fprintf(w, `{"id":%q`, echo(r))
	},
	"connection closed": func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	},
	"stream error event": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, sse("error", fmt.Sprintf(`{"type":"error","error":{"type":"overloaded_error","message":%q}}`, echo(r))))
	},
}

// echo is what a request carried that a hostile or chatty server repeats.
func echo(r *http.Request) string {
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.Header.Get("Authorization"), "Basic "))
	return fmt.Sprintf("x-api-key=%s authorization=%s basic=%s url=%s", r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"), raw, r.URL)
}

// Whatever way the endpoint fails, the error Next returns holds neither
// the API key, nor the bearer token, nor a base URL's password (long or
// short, with characters a URL escapes), in its text or its %+v: the
// SDK's own error text prints the request's URL, user and password
// included.
func TestAttackS19ErrorTextHoldsNoCredential(t *testing.T) {
	const user = "gw-user"
	for _, pass := range []string{"GatewayPassw0rd-HOSTILE-42", "pw19", "p@ss w/rd?x"} {
		for cred, opt := range map[string]option.RequestOption{
			"x-api-key": option.WithAPIKey(hostileKey),
			"bearer":    option.WithAuthToken(hostileKey),
		} {
			for name, h := range failures {
				t.Run(fmt.Sprintf("%s/%s/%s", pass, cred, name), func(t *testing.T) {
					srv := httptest.NewServer(h)
					defer srv.Close()
					base := strings.Replace(srv.URL, "://", "://"+url.UserPassword(user, pass).String()+"@", 1) + "/"
					client := sdk.NewClient(option.WithBaseURL(base), opt, option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
					var opts []anthropic.Option
					if strings.HasPrefix(name, "stream") {
						opts = append(opts, anthropic.WithStream(func(string) {}))
					}
					_, err := anthropic.New(client, "claude-sonnet-4-5", opts...).Next(context.Background(), conversation(), nil)
					require.Error(t, err)
					token := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
					texts := []string{fmt.Sprintf("%+v", err), fmt.Sprintf("%v", err)}
					// The errors it wraps too: errors.As hands the
					// SDK's *Error to a caller who logs it.
					for e := err; e != nil; e = errors.Unwrap(e) {
						texts = append(texts, e.Error())
					}
					var apiErr *sdk.Error
					if errors.As(err, &apiErr) {
						texts = append(texts, apiErr.Error(), string(apiErr.DumpRequest(true)), string(apiErr.DumpResponse(true)))
					}
					for _, text := range texts {
						assert.NotContains(t, text, hostileKey)
						assert.NotContains(t, text, pass)
						assert.NotContains(t, text, url.UserPassword(user, pass).String())
						assert.NotContains(t, text, token)
					}
				})
			}
		}
	}
}
