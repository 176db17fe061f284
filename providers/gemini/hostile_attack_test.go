package gemini_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolbelt-go/toolbelt/providers/gemini"
)

const hostileKey = "AIzaHOSTILEtest0123456789abcdefghijk"

func hostileModel(t *testing.T, handler http.HandlerFunc, httpClient func(*http.Client) *http.Client, opts ...gemini.Option) *gemini.Model {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	hc := srv.Client()
	if httpClient != nil {
		hc = httpClient(hc)
	}
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: hostileKey, Backend: genai.BackendGeminiAPI, HTTPClient: hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	require.NoError(t, err)
	return gemini.New(client, "gemini-2.5-flash", opts...)
}

// An error body that repeats the key the request carried (a proxy that
// says which key it refused, a forged answer) came back in the error's
// text, and so in every log of it; so did a body that is not JSON, whole
// (the SDK puts it in its error), 8 MiB of it making an error of 8 MiB.
// The key is redacted and the text bounded.
func TestHostileEndpointErrorEchoingTheKeyIsRedacted(t *testing.T) {
	echo := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"code":400,"message":"API key not valid: %s","status":"INVALID_ARGUMENT"}}`, r.Header.Get("X-Goog-Api-Key"))
	}
	notJSON := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html>proxy login for key %s %s</html>", r.Header.Get("X-Goog-Api-Key"), strings.Repeat("A", 8<<20))
	}
	streamEcho := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprintf(w, `{"error":{"code":429,"message":"quota of %s exceeded","status":"RESOURCE_EXHAUSTED"}}`, r.Header.Get("X-Goog-Api-Key"))
	}
	for name, model := range map[string]*gemini.Model{
		"error":    hostileModel(t, echo, nil),
		"not json": hostileModel(t, notJSON, nil),
		"stream":   hostileModel(t, streamEcho, nil, gemini.WithStream(func(string) {})),
	} {
		_, err := model.Next(context.Background(), conversation(), nil)
		require.Error(t, err, name)
		assert.NotContains(t, err.Error(), hostileKey, name)
		assert.Contains(t, err.Error(), "[REDACTED]", name)
		assert.Less(t, len(err.Error()), 8<<10, name)
	}
}

// The genai SDK reads a body whole and has no hook a request could carry
// to bound it: the bound is the HTTP client's, which gemini.HTTPClient
// gives. Through it, a 64 MiB answer and a stream that never ends stop at
// DefaultMaxResponseBytes.
func TestHostileEndpointHugeBodyIsBoundedByHTTPClient(t *testing.T) {
	huge := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"`)
		chunk := strings.Repeat("A", 1<<20)
		for range 64 {
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
		fmt.Fprint(w, `"}]},"finishReason":"STOP"}]}`)
	}
	endless := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"` + strings.Repeat("A", 64<<10) + "\"}]}}]}\n\n"
		for r.Context().Err() == nil {
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
	}
	bounded := func(c *http.Client) *http.Client { return gemini.HTTPClient(c, 0) }
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	msg, err := hostileModel(t, huge, bounded).Next(ctx, conversation(), nil)
	if assert.Error(t, err, "a turn of %d bytes", len(msg.Text)) {
		assert.ErrorIs(t, err, gemini.ErrResponseTooLarge)
		assert.Contains(t, err.Error(), "33554432 bytes")
	}
	streamed := 0
	msg, err = hostileModel(t, endless, bounded, gemini.WithStream(func(s string) { streamed += len(s) })).Next(ctx, conversation(), nil)
	if assert.Error(t, err, "a turn of %d bytes", len(msg.Text)) {
		assert.ErrorIs(t, err, gemini.ErrResponseTooLarge)
	}
	assert.LessOrEqual(t, streamed, gemini.DefaultMaxResponseBytes)
	require.NoError(t, ctx.Err(), "the bound stopped it, not the deadline")

	// A bound of one's own; the client given is not changed.
	base := &http.Client{}
	small := gemini.HTTPClient(base, 100)
	assert.Nil(t, base.Transport)
	_, err = hostileModel(t, huge, func(*http.Client) *http.Client { return small }).Next(ctx, conversation(), nil)
	require.ErrorIs(t, err, gemini.ErrResponseTooLarge)
	assert.Contains(t, err.Error(), "100 bytes")
}
