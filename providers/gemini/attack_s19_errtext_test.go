package gemini_test

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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolbelt-go/toolbelt/providers/gemini"
)

// failures are the ways an endpoint fails a request: each echoes what the
// request carried (its headers, the basic credentials decoded, the query)
// where it can.
var failures = map[string]http.HandlerFunc{
	"401 json": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"code":401,"status":"UNAUTHENTICATED","message":%q,"details":[{"reason":%q}]}}`, echo(r), echo(r))
	},
	"500 text": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, echo(r))
	},
	"200 broken json": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"responseId":%q,"candidates":[`, echo(r))
	},
	"200 cut body": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100000")
		fmt.Fprintf(w, `{"responseId":%q`, echo(r))
	},
	"connection closed": func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	},
	"stream error event": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"error\":{\"code\":500,\"message\":%q}}\n\n", echo(r))
	},
}

// echo is what a request carried that a hostile or chatty server repeats.
func echo(r *http.Request) string {
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.Header.Get("Authorization"), "Basic "))
	return fmt.Sprintf("x-goog-api-key=%s authorization=%s basic=%s url=%s", r.Header.Get("X-Goog-Api-Key"), r.Header.Get("Authorization"), raw, r.URL)
}

// Whatever way the endpoint fails, the error Next returns holds neither
// the API key, nor a bearer token sent as a header of the client's
// HTTPOptions, nor a base URL's password (long or short, with characters a
// URL escapes), in its text, its %+v or any error it wraps (errors.As
// hands the SDK's genai.APIError, whose Message and Details are what the
// endpoint said, to a caller who logs it); with the client's HTTP client
// built by gemini.HTTPClient or not.
func TestAttackS19ErrorTextHoldsNoCredential(t *testing.T) {
	const user, bearer = "gw-user", "ya29.HOSTILEbearer0123456789abcdef"
	for _, pass := range []string{"GatewayPassw0rd-HOSTILE-42", "pw19", "p@ss w/rd?x"} {
		for _, cred := range []string{"api key", "bearer header"} {
			for _, wrapped := range []bool{false, true} {
				for name, h := range failures {
					t.Run(fmt.Sprintf("%s/%s/%v/%s", pass, cred, wrapped, name), func(t *testing.T) {
						srv := httptest.NewServer(h)
						defer srv.Close()
						hc := srv.Client()
						if wrapped {
							hc = gemini.HTTPClient(hc, 0)
						}
						cfg := &genai.ClientConfig{APIKey: hostileKey, Backend: genai.BackendGeminiAPI, HTTPClient: hc,
							HTTPOptions: genai.HTTPOptions{BaseURL: strings.Replace(srv.URL, "://", "://"+url.UserPassword(user, pass).String()+"@", 1)}}
						if cred == "bearer header" {
							cfg.HTTPOptions.Headers = http.Header{"Authorization": {"Bearer " + bearer}}
						}
						client, err := genai.NewClient(context.Background(), cfg)
						require.NoError(t, err)
						var opts []gemini.Option
						if strings.HasPrefix(name, "stream") {
							opts = append(opts, gemini.WithStream(func(string) {}))
						}
						_, err = gemini.New(client, "gemini-2.5-flash", opts...).Next(context.Background(), conversation(), nil)
						require.Error(t, err)
						texts := []string{fmt.Sprintf("%+v", err), fmt.Sprintf("%v", err)}
						for e := err; e != nil; e = errors.Unwrap(e) {
							texts = append(texts, e.Error())
						}
						var apiErr genai.APIError
						if errors.As(err, &apiErr) {
							texts = append(texts, apiErr.Message, apiErr.Status, fmt.Sprint(apiErr.Details))
						}
						token := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
						for _, text := range texts {
							assert.NotContains(t, text, hostileKey)
							assert.NotContains(t, text, bearer)
							assert.NotContains(t, text, pass)
							assert.NotContains(t, text, url.UserPassword(user, pass).String())
							assert.NotContains(t, text, token)
						}
					})
				}
			}
		}
	}
}
