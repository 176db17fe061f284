package openai_test

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

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/providers/openai"
)

// failures are the ways an endpoint fails a request: each echoes what the
// request carried (its headers, the basic credentials decoded, the query)
// where it can.
var failures = map[string]http.HandlerFunc{
	"401 json": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"type":"invalid_request_error","code":"bad_key","message":%q}}`, echo(r))
	},
	"500 text": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, echo(r))
	},
	"200 broken json": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%q,"choices":[`, echo(r))
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
		fmt.Fprintf(w, "data: {\"error\":{\"message\":%q}}\n\n", echo(r))
	},
}

// echo is what a request carried that a hostile or chatty server repeats.
func echo(r *http.Request) string {
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.Header.Get("Authorization"), "Basic "))
	return fmt.Sprintf("api-key=%s authorization=%s basic=%s url=%s", r.Header.Get("Api-Key"), r.Header.Get("Authorization"), raw, r.URL)
}

// Whatever way the endpoint fails, the error Next returns holds neither
// the API key (as a bearer token or Azure's Api-Key) nor a base URL's
// password (long or short, with characters a URL escapes), in its text,
// its %+v, or any error it wraps (errors.As hands the SDK's *Error to a
// caller who logs it; its DumpRequest prints the request's headers and
// its Request the URL, user and password included).
func TestAttackS19ErrorTextHoldsNoCredential(t *testing.T) {
	const user = "gw-user"
	for _, pass := range []string{"GatewayPassw0rd-HOSTILE-42", "pw19", "p@ss w/rd?x"} {
		for _, cred := range []string{"bearer", "azure"} {
			for name, h := range failures {
				t.Run(fmt.Sprintf("%s/%s/%s", pass, cred, name), func(t *testing.T) {
					srv := httptest.NewServer(h)
					defer srv.Close()
					base := strings.Replace(srv.URL, "://", "://"+url.UserPassword(user, pass).String()+"@", 1)
					opts := []option.RequestOption{option.WithBaseURL(base + "/v1/"), option.WithAPIKey(hostileKey)}
					if cred == "azure" {
						opts = []option.RequestOption{azure.WithEndpoint(base, "2024-10-21"), azure.WithAPIKey(hostileKey)}
					}
					client := sdk.NewClient(append(opts, option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))...)
					stream := strings.HasPrefix(name, "stream")
					models := map[string]agent.Model{"chat": openai.New(client, "gpt-4.1"), "responses": openai.NewResponses(client, "gpt-4.1")}
					if stream {
						models = map[string]agent.Model{
							"chat":      openai.New(client, "gpt-4.1", openai.WithStream(func(string) {})),
							"responses": openai.NewResponses(client, "gpt-4.1", openai.WithResponsesStream(func(string) {})),
						}
					}
					for api, m := range models {
						_, err := m.Next(context.Background(), conversation(), nil)
						require.Error(t, err, api)
						texts := []string{fmt.Sprintf("%+v", err), fmt.Sprintf("%v", err)}
						for e := err; e != nil; e = errors.Unwrap(e) {
							texts = append(texts, e.Error())
						}
						var apiErr *sdk.Error
						if errors.As(err, &apiErr) {
							texts = append(texts, apiErr.RawJSON(), apiErr.Message, string(apiErr.DumpRequest(true)), string(apiErr.DumpResponse(true)))
							if apiErr.Request != nil {
								texts = append(texts, apiErr.Request.URL.String())
							}
						}
						token := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
						for _, text := range texts {
							assert.NotContains(t, text, hostileKey, api)
							assert.NotContains(t, text, pass, api)
							assert.NotContains(t, text, url.UserPassword(user, pass).String(), api)
							assert.NotContains(t, text, token, api)
						}
					}
				})
			}
		}
	}
}
