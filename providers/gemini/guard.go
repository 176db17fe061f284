package gemini

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/toolbelt-go/toolbelt/internal/origin"
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
	out := *c
	out.Transport = guard.Transport(c.Transport, max, "raise it with gemini.HTTPClient")
	if out.CheckRedirect == nil {
		out.CheckRedirect = sameOrigin
	}
	return &out
}

// sameOrigin follows a redirect only within the origin (scheme, host and
// port) of the first request, and at most 10. net/http drops
// Authorization and cookies on a redirect to another host, but not
// x-goog-api-key, which the genai SDK sends the key in: a proxy or an
// open redirect in front of the API would have it (and, with a 307, the
// conversation) sent to a host of its choosing.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if from, to := origin.Of(via[0].URL), origin.Of(req.URL); from != to {
		return fmt.Errorf("the endpoint redirected to another origin (%s, from %s): not followed, as the API key would go along", to, from)
	}
	return nil
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
