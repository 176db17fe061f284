package gemini

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/toolbelt-go/toolbelt/providers/internal/guard"
)

// DefaultMaxResponseBytes is the bound HTTPClient puts on the bytes read
// from one response body (a stream's too) when given none.
const DefaultMaxResponseBytes = guard.DefaultMaxBytes

// ErrResponseTooLarge is returned (wrapped) by Next, through a client of
// HTTPClient, when a response body is larger than the bound.
var ErrResponseTooLarge = guard.ErrTooLarge

// HTTPClient returns a copy of c (of http.DefaultClient when c is nil)
// whose transport reads at most max bytes of a response body
// (DefaultMaxResponseBytes when max <= 0) and redacts the credentials a
// request carried (the API key, an OAuth token) from error responses.
// Pass it as genai.ClientConfig.HTTPClient: the genai SDK reads a body
// whole and has no per-request hook, so without it nothing bounds what an
// endpoint (a proxy, a man in the middle) sends. Unless c has a
// CheckRedirect of its own, redirects are followed only within the
// endpoint's origin (scheme, host and port), at most 10: net/http would
// send the x-goog-api-key header to another host. c is not changed.
//
//	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: key, HTTPClient: gemini.HTTPClient(nil, 0)})
func HTTPClient(c *http.Client, max int64) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	// guard.Client: the providers' one redirect rule (guard.SameOrigin),
	// unless c has a CheckRedirect of its own.
	out := *guard.Client(c)
	out.Transport = guard.Transport(c.Transport, max, "raise it with gemini.HTTPClient")
	return &out
}

// clean is err with the client's API key redacted from its text and the
// text bounded (guard.MaxErrorText): the SDK's errors may hold what the
// endpoint sent, a body that is not JSON whole. When HTTPClient's bound
// cut a body (cut), that is the error: the SDK may report the cut chunk
// it could not read instead.
func (m *Model) clean(err, cut error) error {
	if cut != nil && !errors.Is(err, cut) {
		err = fmt.Errorf("gemini: generateContent with model %q: %w", m.model, cut)
	}
	g := guard.New(0, "")
	if m.client != nil {
		g.Secret(m.client.ClientConfig().APIKey)
	}
	return g.Err(err)
}
