package gemini_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolbelt-go/toolbelt/providers/gemini"
)

// An endpoint (a proxy, a gateway, an open redirect in front of the API)
// that redirects to another origin had net/http follow with the key:
// net/http drops Authorization and cookies on a redirect to another host,
// but not x-goog-api-key, which the genai SDK sends the key in, and a 307
// sends the conversation along too. gemini.HTTPClient, the client the
// adapter's bound and redaction come with, follows a redirect only within
// the endpoint's origin, as the MCP and HTTP tools do.
func TestAttackS17RedirectToAnotherOriginDoesNotCarryTheKey(t *testing.T) {
	var got atomic.Value
	got.Store("")
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("X-Goog-Api-Key"))
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer other.Close()
	// Another origin: the same server under another host name.
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherURL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer first.Close()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: hostileKey, Backend: genai.BackendGeminiAPI, HTTPClient: gemini.HTTPClient(nil, 0),
		HTTPOptions: genai.HTTPOptions{BaseURL: first.URL},
	})
	require.NoError(t, err)
	_, err = gemini.New(client, "gemini-2.5-flash").Next(context.Background(), conversation(), nil)
	require.Error(t, err)
	assert.Empty(t, got.Load(), "the other origin received the key")
	assert.Contains(t, err.Error(), "another origin")
	assert.NotContains(t, err.Error(), hostileKey)

	// A client's redirect policy of its own is asked after the origin
	// rule (s19): a permissive one does not let the key go elsewhere.
	permissive := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}
	client, err = genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: hostileKey, Backend: genai.BackendGeminiAPI, HTTPClient: gemini.HTTPClient(permissive, 0),
		HTTPOptions: genai.HTTPOptions{BaseURL: first.URL},
	})
	require.NoError(t, err)
	_, err = gemini.New(client, "gemini-2.5-flash").Next(context.Background(), conversation(), nil)
	require.Error(t, err)
	assert.Empty(t, got.Load(), "the other origin received the key")
	assert.Contains(t, err.Error(), "another origin")
}
