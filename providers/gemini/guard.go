package gemini

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"google.golang.org/genai"

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
// endpoint (a proxy, a man in the middle) sends. Redirects are followed
// only within the endpoint's origin (scheme, host and port), at most 10:
// net/http would send the x-goog-api-key header to another host; c's own
// CheckRedirect, if it has one, is asked after that, about redirects
// within the origin only. c is not changed, and the copy is taken now: a
// later change to c's fields is not seen by it (call HTTPClient again).
//
//	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: key, HTTPClient: gemini.HTTPClient(nil, 0)})
func HTTPClient(c *http.Client, max int64) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	// guard.Client: the providers' one redirect rule (guard.SameOrigin),
	// then c's CheckRedirect if it has one.
	out := *guard.Client(c)
	out.Transport = guard.Transport(c.Transport, max, "raise it with gemini.HTTPClient", "gemini")
	return &out
}

// MaxResponseElements bounds the array elements of an answer, and of each
// event of a stream, read through a client of HTTPClient: the SDK decodes
// each element of a list (candidates, parts) into a value of its types,
// whatever the element ("{}", "null"), so that a body, or a stream's
// single event, of 768 KiB asked for over 100 MB. An answer or event of
// more is refused before the SDK decodes it, with ErrResponseTooLarge.
const MaxResponseElements = guard.MaxElements

// MaxResponseMembers bounds the object members of an answer, and of each
// event of a stream, read through a client of HTTPClient, as
// MaxResponseElements bounds their array elements: the SDK decodes an
// answer through a map of every member, those its types do not name too,
// so that 100,000 unknown keys on a part, a body of 930 KB, asked for
// 24 MB. An answer or event of more is refused before the SDK decodes it,
// with ErrResponseTooLarge.
const MaxResponseMembers = guard.MaxMembers

// MaxResponseArgsValues bounds the array elements and object members,
// together, of the tool arguments (a functionCall's args) of an answer,
// and of each event of a stream, read through a client of HTTPClient.
// MaxResponseElements and MaxResponseMembers do not count them: they are
// JSON the model wrote, and a real answer holds many (a table of 20,000
// rows written to a tool holds about 140,000), while the SDK decodes
// them as encoding/json decodes any JSON, a map or a slice each (about
// 320 bytes for a "{}"), not into values of its types. An answer or
// event of more is refused before the SDK decodes it, with
// ErrResponseTooLarge.
const MaxResponseArgsValues = guard.MaxFreeValues

// clean is err with the credentials g knows (guard) redacted from its
// text and the text bounded (guard.MaxErrorText): the SDK's errors may
// hold what the endpoint sent, a body that is not JSON whole. When
// HTTPClient's bound cut a body (cut), that is the error: the SDK may
// report the cut chunk it could not read instead.
func (m *Model) clean(g *guard.Guard, err, cut error) error {
	if cut != nil && !errors.Is(err, cut) {
		err = fmt.Errorf("gemini: generateContent with model %q: %w", m.model, cut)
	}
	return g.Err(err)
}

// guard is a Guard that knows the credentials a request with config
// carries: the client's API key, the credential headers of the client's
// and the request's HTTPOptions (an Authorization: Bearer token), and
// the user and password of their base URL.
func (m *Model) guard(config *genai.GenerateContentConfig) *guard.Guard {
	g := guard.New(0, "", "gemini")
	if m.client == nil {
		return g
	}
	cc := m.client.ClientConfig()
	g.Secret(cc.APIKey)
	opts := []genai.HTTPOptions{cc.HTTPOptions}
	if config != nil && config.HTTPOptions != nil {
		opts = append(opts, *config.HTTPOptions)
	}
	for _, o := range opts {
		g.Header(o.Headers)
		if u, err := url.Parse(o.BaseURL); err == nil {
			g.URL(u)
		}
	}
	return g
}

// ErrPlainHTTP is returned (wrapped) by Next when the base URL (the
// client's HTTPOptions, GOOGLE_GEMINI_BASE_URL, or the request config's
// HTTPOptions) is http:// to a host that is not this machine and
// WithInsecureHTTP is not given: the key and the conversation would cross
// the network in clear text. Nothing is sent.
var ErrPlainHTTP = guard.ErrPlainHTTP

// WithInsecureHTTP allows a base URL http:// to a host that is not this
// machine (localhost, 127.0.0.0/8, ::1), for a server you trust on your
// own network; the key and the conversation then cross it in clear text.
// http to this machine needs no option.
func WithInsecureHTTP() Option { return func(m *Model) { m.insecureHTTP = true } }

// checkScheme refuses a base URL http:// to another machine, unless
// WithInsecureHTTP (guard.CheckScheme). The request config's base URL,
// when set, is the one the SDK uses.
func (m *Model) checkScheme(config *genai.GenerateContentConfig) error {
	if m.insecureHTTP || m.client == nil {
		return nil
	}
	base := m.client.ClientConfig().HTTPOptions.BaseURL
	if config != nil && config.HTTPOptions != nil && config.HTTPOptions.BaseURL != "" {
		base = config.HTTPOptions.BaseURL
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil // the SDK refuses it
	}
	if err := guard.CheckScheme(u, false, "gemini.WithInsecureHTTP()"); err != nil {
		return fmt.Errorf("gemini: model %q: %w", m.model, err)
	}
	return nil
}
