package gemini_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
// gives. Through it, an answer and a stream four times the bound stop at
// the bound, with an error naming it, and what reading took is bounded by
// it. The bound here is 1 MiB (HTTPClient's max): the default's 32 MiB
// made the test slow (over its own 60 s deadline under -race on a loaded
// machine), as each byte read is decoded and copied several times.
func TestHostileEndpointHugeBodyIsBoundedByHTTPClient(t *testing.T) {
	const bound = 1 << 20
	chunk := strings.Repeat("A", 64<<10)
	huge := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"`)
		for range 4 * bound / len(chunk) {
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
		fmt.Fprint(w, `"}]},"finishReason":"STOP"}]}`)
	}
	long := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		event := `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"` + chunk + "\"}]}}]}\n\n"
		for range 4 * bound / len(chunk) {
			if _, err := fmt.Fprint(w, event); err != nil {
				return
			}
		}
	}
	// A bound of one's own; the client given is not changed.
	base := &http.Client{}
	client := gemini.HTTPClient(base, bound)
	assert.Nil(t, base.Transport)
	bounded := func(*http.Client) *http.Client { return client }
	streamed := 0
	for name, model := range map[string]*gemini.Model{
		"answer": hostileModel(t, huge, bounded),
		"stream": hostileModel(t, long, bounded, gemini.WithStream(func(s string) { streamed += len(s) })),
	} {
		var err error
		used := allocated(func() {
			_, err = model.Next(context.Background(), conversation(), nil)
		})
		t.Logf("%s: %d bytes allocated", name, used)
		require.Error(t, err, name)
		assert.ErrorIs(t, err, gemini.ErrResponseTooLarge, name)
		assert.Contains(t, err.Error(), "1048576 bytes", name)
		assert.Contains(t, err.Error(), "gemini.HTTPClient", name)
		// A few copies of what was read and its decoding: bounded by the
		// bound, not by the 4 MiB sent.
		assert.LessOrEqual(t, used, uint64(64*bound), "%s: bytes allocated to read %d bytes", name, bound)
	}
	assert.LessOrEqual(t, streamed, bound, "text shown from the stream")
	assert.Nil(t, base.Transport)
}
