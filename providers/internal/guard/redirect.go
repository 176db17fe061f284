package guard

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"sync"

	"github.com/toolbelt-go/toolbelt/internal/origin"
)

// maxRedirects is how many redirects SameOrigin follows, as net/http's
// default policy does.
const maxRedirects = 10

// SameOrigin is the providers' redirect policy (an http.Client
// CheckRedirect): a redirect is followed only within the origin (scheme,
// host and port, internal/origin.Of) of the first request, and at most
// 10. net/http drops Authorization on a redirect to another host but keeps
// it for another port or a subdomain, and always keeps the headers the
// vendors' SDKs send the key in (x-api-key, Api-Key, x-goog-api-key): an
// endpoint, a proxy or an open redirect in front of the API would have the
// key (and, with a 307, the conversation) sent to a server of its choosing.
func SameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	// origin.Of folds ASCII case only: apİ.example.com is another host
	// than api.example.com, as net/http dials it.
	if origin.Of(via[0].URL) != origin.Of(req.URL) {
		return fmt.Errorf("the endpoint %s redirected to another origin, %s: not followed, as the API key would go along "+
			"(set the client's base URL to the address it redirects to, if you trust it)",
			named(via[0].URL), named(req.URL))
	}
	return nil
}

// named is u's origin as the endpoint wrote it, for an error's text: not
// lower-cased, so that the redaction of a key it echoes still finds it.
func named(u *url.URL) string { return u.Scheme + "://" + u.Host }

// Client returns a copy of c (of http.DefaultClient when c is nil) whose
// CheckRedirect is SameOrigin and then c's own CheckRedirect, if it has
// one: the user's policy decides the redirects within the origin (it may
// stop them, or follow fewer), never one to another origin, which a
// policy written for another purpose (counting, logging) would let
// through with the key. c is not changed.
//
// The copy is taken once: a later change to c's fields (its Transport,
// Timeout, Jar, CheckRedirect) is not seen by the copy, which keeps what
// c had when it was copied; c's Transport itself is shared, so a change
// inside it is seen.
func Client(c *http.Client) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	out := *c
	if own := c.CheckRedirect; own != nil {
		out.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if err := SameOrigin(req, via); err != nil {
				return err
			}
			return own(req, via)
		}
	} else {
		out.CheckRedirect = SameOrigin
	}
	return &out
}

// Clients gives out Client's copy of a client, the same copy for the same
// client, so that what an SDK keys on a request's client (the Anthropic
// SDK's token caches) stays put from one request to the next. Its zero
// value is ready to use; a Clients remembers one client at a time.
type Clients struct {
	mu       sync.Mutex
	from, to *http.Client
}

// Of is Client(c), the same copy each time c is the same (a fresh copy
// each time when cs is nil). The copy is made the first time c is seen:
// a later change to c's fields is not seen (see Client).
func (cs *Clients) Of(c *http.Client) *http.Client {
	if cs == nil {
		return Client(c)
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.to == nil || cs.from != c {
		cs.from, cs.to = c, Client(c)
	}
	return cs.to
}

// ConfigFunc is a request option of a Stainless SDK (anthropic-sdk-go,
// openai-go): their option.RequestOption is interface{ Apply(C) error },
// with C a pointer to the config of one request, a type of the SDK's
// internal package, which a ConfigFunc names by type inference.
type ConfigFunc[C any] func(C) error

// Apply calls f: it is what makes f an option.RequestOption.
func (f ConfigFunc[C]) Apply(cfg C) error { return f(cfg) }

// SameOriginRedirects returns a request option of the SDK whose
// option.RequestOption is like's type (a nil option.RequestOption will
// do) that sends the request with cs.Of of the HTTP client the client's
// options chose: redirects within the endpoint's origin only (SameOrigin),
// and then as that client's own CheckRedirect says (Client). A custom HTTP
// doer (option.WithHTTPClient of something other than an *http.Client) is
// left as it is: it follows redirects where no option sees them, so the
// key may go along; Guard.Middleware refuses the answer of another origin
// that such a doer returns.
//
// The SDKs follow redirects inside http.Client.Do, below every middleware,
// and no option of theirs reads the client the others chose; so the option
// sets the config's HTTPClient field as option.WithHTTPClient does, by
// reflection. An SDK whose config has no such field is refused with an
// error, rather than its requests sent without the policy.
func SameOriginRedirects[C any](like interface{ Apply(C) error }, cs *Clients) ConfigFunc[C] {
	return func(cfg C) error {
		v := reflect.ValueOf(cfg)
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return unknownConfig(cfg)
		}
		s := v.Elem()
		if doer := s.FieldByName("CustomHTTPDoer"); doer.IsValid() && doer.Kind() == reflect.Interface && !doer.IsNil() {
			return nil
		}
		f := s.FieldByName("HTTPClient")
		if !f.IsValid() || f.Type() != reflect.TypeFor[*http.Client]() || !f.CanSet() {
			return unknownConfig(cfg)
		}
		f.Set(reflect.ValueOf(cs.Of(f.Interface().(*http.Client))))
		return nil
	}
}

// ErrUnknownConfig is returned (wrapped) by a SameOriginRedirects option
// applied to a config it cannot set the HTTP client of, and by a
// SchemeCheck option applied to one it cannot read the base URL of.
var ErrUnknownConfig = errors.New("the SDK's request config lacks a field the adapter reads " +
	"(HTTPClient *http.Client; BaseURL and DefaultBaseURL *url.URL)")

func unknownConfig(cfg any) error {
	return fmt.Errorf("%w (%T): the adapter cannot check the base URL's scheme nor keep redirects within the endpoint's origin, so it sends nothing; "+
		"use the SDK version the adapter's go.mod requires", ErrUnknownConfig, cfg)
}
