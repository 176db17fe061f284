package httptool

import (
	"context"
	"strings"
)

// Defaults used when no option overrides them.
const (
	// DefaultMaxResponseBytes caps how much of a response body is read.
	DefaultMaxResponseBytes = 1 << 20
	// DefaultMaxRedirects bounds how many redirects one call follows.
	DefaultMaxRedirects = 5
)

// CredentialFunc returns the credential for one call (a token, an API
// key). It runs on every call, so it can refresh or rotate the value.
type CredentialFunc func(ctx context.Context) (string, error)

// Option configures the client behind HTTP tools (New, FromSpec, Kind).
type Option func(*options)

type options struct {
	allow        []string
	private      map[string]bool
	maxBody      int64
	maxRedirects int
	creds        map[string]CredentialFunc
	userAgent    string
}

func newOptions(opts []Option) *options {
	o := &options{
		private:      map[string]bool{},
		maxBody:      DefaultMaxResponseBytes,
		maxRedirects: DefaultMaxRedirects,
		creds:        map[string]CredentialFunc{},
		userAgent:    "toolbelt-httptool/1",
	}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	return o
}

// WithAllowedHosts restricts requests (and redirects) to these hosts. A
// pattern "*.example.com" matches every subdomain of example.com, "*" every
// host. With no allow list every host is allowed, subject to the address
// checks. Building a tool (New, FromSpec) fails on a pattern that is not a
// host name, an IP address or one of those forms ("*example.com",
// "https://api.example.com", "api.example.com:443"), and on a tool whose
// URL names a host the list refuses.
func WithAllowedHosts(hosts ...string) Option {
	return func(o *options) {
		for _, h := range hosts {
			if h = normHost(strings.TrimSpace(h)); h != "" {
				o.allow = append(o.allow, h)
			}
		}
	}
}

// WithPrivateHosts lets requests to these host names (exactly as they
// appear in URLs, e.g. "127.0.0.1", "localhost", "billing.internal") reach
// whatever address they resolve to, including loopback, private, link-local
// and metadata addresses, which the guard otherwise refuses. Use it for
// tests and local services; a host must still pass the allow list. A
// redirect leads into such a host only from hosts exempted too. Building
// a tool fails on an entry that is not a host name or IP address (a URL, a
// port, a wildcard).
func WithPrivateHosts(hosts ...string) Option {
	return func(o *options) {
		for _, h := range hosts {
			if h = normHost(strings.TrimSpace(h)); h != "" {
				o.private[h] = true
			}
		}
	}
}

// WithMaxResponseBytes caps how much of a response body is read
// (default 1 MiB). The rest is not read; the result says it was truncated.
// Zero or negative keeps the default.
func WithMaxResponseBytes(n int64) Option {
	return func(o *options) {
		if n > 0 {
			o.maxBody = n
		}
	}
}

// WithMaxRedirects bounds the redirects one call follows (default 5); 0
// keeps the default and a negative value follows none.
func WithMaxRedirects(n int) Option {
	return func(o *options) {
		switch {
		case n < 0:
			o.maxRedirects = 0
		case n > 0:
			o.maxRedirects = n
		}
	}
}

// WithCredential registers a named credential provider; a tool's
// Config.Auth.Provider refers to it by name.
func WithCredential(name string, fn CredentialFunc) Option {
	return func(o *options) { o.creds[name] = fn }
}

// WithUserAgent sets the User-Agent header (default "toolbelt-httptool/1").
func WithUserAgent(ua string) Option { return func(o *options) { o.userAgent = ua } }
