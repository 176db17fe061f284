// Package guard protects the provider adapters (providers/openai,
// providers/anthropic, providers/gemini) from what an endpoint sends back,
// which is untrusted input (a broken or hostile OpenAI-compatible server,
// a proxy, a man in the middle): it bounds the bytes read from a response
// body, and redacts the credentials a request carried from the error
// responses and from the text of errors.
//
// A Guard serves the requests of one model turn; its Middleware has the
// shape of the Stainless SDKs' option.Middleware.
package guard

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/toolbelt-go/toolbelt/internal/errtext"
	"github.com/toolbelt-go/toolbelt/internal/origin"
	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
)

// DefaultMaxBytes is the bound on one response body when none is given.
const DefaultMaxBytes = 32 << 20

// Redacted replaces a credential: redact.Mask, since the credentials are
// masked by the project's one rule for a call's secret values
// (redact.Scrub).
const Redacted = redact.Mask

// minSecret is the shortest header value taken for a credential: shorter
// ones would redact ordinary words.
const minSecret = 8

// ErrTooLarge is returned (wrapped) when a response body is larger than
// the bound.
var ErrTooLarge = errors.New("response body too large")

// credentialHeaders are the headers that carry a provider's key.
var credentialHeaders = []string{"Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key"}

// Guard bounds the response bodies of one model turn's requests and
// remembers the credentials they carried, to redact them.
type Guard struct {
	max      int64
	hint     string
	provider string

	mu      sync.Mutex
	secrets []string
}

// New returns a Guard reading at most max bytes of a response body
// (DefaultMaxBytes when max <= 0), and at most MaxElements array elements
// and MaxMembers object members of its JSON value or of each event of a
// stream; hint says how to raise the byte bound, and provider is the
// adapter's package name ("openai"), for an error that names its
// MaxResponseElements or MaxResponseMembers.
func New(max int64, hint, provider string) *Guard {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	return &Guard{max: max, hint: hint, provider: provider}
}

// Secret adds a credential to redact that the requests may not show (a
// key the client sends in a way the middleware does not see).
func (g *Guard) Secret(s string) { g.secret(s, minSecret) }

// minPassword is the shortest URL password taken for a credential:
// redact.Scrub's own minimum. A password is a credential at any length,
// where a short header value may be an ordinary word.
const minPassword = 4

func (g *Guard) secret(s string, min int) {
	if len(s) < min {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, have := range g.secrets {
		if have == s {
			return
		}
	}
	g.secrets = append(g.secrets, s)
}

// Middleware sends req through next, noting the credentials req carries;
// the response body is bounded, and an error response (status 400 and
// up) is read at once with the credentials redacted, so that neither the
// SDK's error nor anything built from it holds them.
func (g *Guard) Middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	g.Header(req.Header)
	g.URL(req.URL)
	res, err := next(req)
	if err == nil && res != nil && res.Request != nil && res.Request.URL != nil && req.URL != nil &&
		origin.Of(res.Request.URL) != origin.Of(req.URL) {
		// Only a custom HTTP doer gets here: an *http.Client of the
		// adapter's stops at SameOrigin. The key went along already; the
		// answer, another server's, is not used.
		if res.Body != nil {
			_ = res.Body.Close()
		}
		return nil, g.Err(fmt.Errorf("the endpoint %s answered from another origin, %s: the client's custom HTTP doer followed a redirect "+
			"the adapter cannot see, and the API key may have gone along; the answer is not used "+
			"(give the SDK an *http.Client, whose redirects the adapter keeps within the origin)", named(req.URL), named(res.Request.URL)))
	}
	if err != nil || res == nil || res.Body == nil {
		return res, g.Err(err)
	}
	body := &limited{rc: res.Body, left: g.max, g: g, watch: watching(req.Context())}
	if res.StatusCode < 400 {
		return g.elementsBounded(res, body), nil
	}
	b, err := io.ReadAll(body)
	_ = body.Close()
	if err != nil {
		return nil, g.Err(fmt.Errorf("HTTP %d: reading the error response: %w", res.StatusCode, err))
	}
	b = g.redact(b)
	res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	return res, nil
}

// Header adds the credentials of h to redact: the values of the headers
// that carry a provider's key, and the token after a scheme ("Bearer
// ...").
func (g *Guard) Header(h http.Header) {
	for _, name := range credentialHeaders {
		for _, v := range h.Values(name) {
			g.Secret(v)
			if _, token, ok := strings.Cut(v, " "); ok {
				g.Secret(strings.TrimSpace(token))
			}
		}
	}
}

// URL adds the credentials of u to redact: a "key" query parameter, and
// a user and password, which net/http sends as an Authorization Basic
// header it adds below every middleware. u may be nil.
func (g *Guard) URL(u *url.URL) {
	if u == nil {
		return
	}
	g.Secret(u.Query().Get("key"))
	if pass, ok := u.User.Password(); ok {
		basic := u.User.Username() + ":" + pass
		g.secret(pass, minPassword)
		g.Secret(basic)
		g.Secret(base64.StdEncoding.EncodeToString([]byte(basic)))
		// As a URL writes it, for an error that prints the URL.
		g.Secret(u.User.String() + "@")
	}
}

// MaxErrorText bounds the text of an error Err returns: an SDK's error may
// hold a whole response body.
const MaxErrorText = 4 << 10

// Err is err with the credentials redacted from its text and the text cut
// to MaxErrorText (it still wraps err, for errors.As and errors.Is); err
// itself when there is nothing to redact or cut.
func (g *Guard) Err(err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	red := string(g.redact([]byte(text)))
	if len(red) > MaxErrorText {
		head := textcut.Head(red, MaxErrorText)
		red = fmt.Sprintf("%s... [%d bytes cut]", head, len(red)-len(head))
	}
	if red != text {
		return errtext.New(red, err)
	}
	return err
}

// Text is s with the credentials the requests carried masked (as the
// error responses are), for a text an SDK keeps in its error (the body of
// a stream's error event, which is not an error response).
func (g *Guard) Text(s string) string { return string(g.redact([]byte(s))) }

// Request returns a copy of req that is safe to print, for an SDK error
// that keeps the request (the Stainless SDKs' Error prints its URL, and
// DumpRequest its headers): the URL's password is "xxxxx" (as
// url.URL.Redacted writes it), a "key" query parameter and the
// credential headers are Redacted. req itself is not changed; nil stays
// nil.
func Request(req *http.Request) *http.Request {
	if req == nil {
		return nil
	}
	out := req.Clone(req.Context())
	if out.URL != nil {
		if _, ok := out.URL.User.Password(); ok {
			out.URL.User = url.UserPassword(out.URL.User.Username(), "xxxxx")
		}
		if q := out.URL.Query(); q.Has("key") {
			q.Set("key", Redacted)
			out.URL.RawQuery = q.Encode()
		}
	}
	for _, h := range append(credentialHeaders, "Proxy-Authorization", "Cookie") {
		if out.Header.Get(h) != "" {
			out.Header.Set(h, Redacted)
		}
	}
	return out
}

// redact masks the credentials in b as they are, behind JSON escapes,
// percent-encoded, in hex or in base64 (redact.Scrub).
func (g *Guard) redact(b []byte) []byte {
	g.mu.Lock()
	secrets := g.secrets[:len(g.secrets):len(g.secrets)]
	g.mu.Unlock()
	if len(secrets) == 0 {
		return b
	}
	s := string(b)
	if out := redact.Scrub(s, secrets); out != s {
		return []byte(out)
	}
	return b
}

// Transport is a RoundTripper that sends each request through next
// (http.DefaultTransport when nil) under a Guard of its own, for an SDK
// whose only hook is the HTTP client; max, hint and provider are New's.
func Transport(next http.RoundTripper, max int64, hint, provider string) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{next: next, max: max, hint: hint, provider: provider}
}

type transport struct {
	next     http.RoundTripper
	max      int64
	hint     string
	provider string
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	return New(t.max, t.hint, t.provider).Middleware(req, t.next.RoundTrip)
}

type watchKey struct{}

// watch records the bound a body of a request under Watch ran into.
type watch struct {
	mu  sync.Mutex
	err error
}

// Watch returns ctx noting, for the requests made under it, whether a
// Guard cut a response body; cut returns that error (nil if none). An SDK
// may hide the error of a cut body behind its own (a stream's last, cut
// chunk that is not JSON): cut tells what happened.
func Watch(ctx context.Context) (_ context.Context, cut func() error) {
	w := &watch{}
	return context.WithValue(ctx, watchKey{}, w), func() error {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.err
	}
}

func watching(ctx context.Context) *watch {
	w, _ := ctx.Value(watchKey{}).(*watch)
	return w
}

// limited is a response body that fails once more than its bound is read.
type limited struct {
	rc    io.ReadCloser
	left  int64
	g     *Guard
	watch *watch
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, l.tooLarge()
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.rc.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n - int(-l.left), l.tooLarge()
	}
	return n, err
}

func (l *limited) tooLarge() error {
	return l.fail(&tooLarge{max: l.g.max, hint: l.g.hint})
}

// fail returns err, the bound body ran into, noting it for Watch.
func (l *limited) fail(err error) error {
	if l.watch != nil {
		l.watch.mu.Lock()
		l.watch.err = err
		l.watch.mu.Unlock()
	}
	return err
}

func (l *limited) Close() error { return l.rc.Close() }

type tooLarge struct {
	max  int64
	hint string
}

func (e *tooLarge) Error() string {
	msg := fmt.Sprintf("the response body is larger than %d bytes, the bound on what is read from the endpoint", e.max)
	if e.hint != "" {
		msg += " (" + e.hint + ")"
	}
	return msg
}

func (e *tooLarge) Is(target error) bool { return target == ErrTooLarge }
