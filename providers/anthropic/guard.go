package anthropic

import (
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/toolbelt-go/toolbelt/providers/internal/guard"
)

// DefaultMaxResponseBytes bounds the bytes read from one response body
// (a stream's too) when WithMaxResponseBytes is not given. The SDK reads a
// body whole, and a stream's text adds up, so an endpoint (a broken or
// hostile proxy, a man in the middle) could otherwise send more than the
// memory holds.
const DefaultMaxResponseBytes = guard.DefaultMaxBytes

// ErrResponseTooLarge is returned (wrapped) by Next when a response body
// is larger than the bound.
var ErrResponseTooLarge = guard.ErrTooLarge

// WithMaxResponseBytes sets the bound on the bytes read from one response
// body (default DefaultMaxResponseBytes; zero or less keeps it).
func WithMaxResponseBytes(n int64) Option { return func(m *Model) { m.maxBytes = n } }

// MaxResponseElements bounds the array elements of an answer, and of each
// event of a stream: the SDK decodes each element of a list (content
// blocks) into a value of its types, whatever the element ("{}", "null"),
// so that a body of 768 KiB asked for 426 MB, and a stream's single event
// of 768 KiB for 439 MB. An answer or event of more is refused before the
// SDK decodes it, with ErrResponseTooLarge.
const MaxResponseElements = guard.MaxElements

// MaxResponseMembers bounds the object members of an answer, and of each
// event of a stream, as MaxResponseElements bounds their array elements:
// the SDK keeps each member its types do not name (in ExtraFields, with
// its field metadata), about 500 bytes for a member "k":0 of 9, so that
// 100,000 unknown keys on a message, a body of 930 KB, asked for 53 MB.
// An answer or event of more is refused before the SDK decodes it, with
// ErrResponseTooLarge.
const MaxResponseMembers = guard.MaxMembers

// ErrPlainHTTP is returned (wrapped) by Next when the client's base URL is
// http:// to a host that is not this machine and WithInsecureHTTP is not
// given: the API key and the conversation would cross the network in
// clear text. Nothing is sent.
var ErrPlainHTTP = guard.ErrPlainHTTP

// WithInsecureHTTP allows a base URL http:// to a host that is not this
// machine (localhost, 127.0.0.0/8, ::1), for a server you trust on your
// own network; the key and the conversation then cross it in clear text.
// http to this machine (a local model server) needs no option.
func WithInsecureHTTP() Option { return func(m *Model) { m.insecureHTTP = true } }

// requestGuard is the guard of one turn's requests and the request option
// that installs it: the response body bounded, the key redacted from
// error responses (see guard.Guard), and redirects followed only within
// the endpoint's origin (guard.SameOriginRedirects) with a copy of the
// client's HTTP client that clients gives out; a base URL http:// to
// another machine is refused unless insecureHTTP (guard.SchemeCheck).
func requestGuard(max int64, clients *guard.Clients, insecureHTTP bool) (*guard.Guard, option.RequestOption) {
	g := guard.New(max, "raise it with anthropic.WithMaxResponseBytes", "anthropic")
	return g, option.Join(guard.SchemeCheck(option.RequestOption(nil), insecureHTTP, "anthropic.WithInsecureHTTP()"),
		option.WithMiddleware(g.Middleware), guard.SameOriginRedirects(option.RequestOption(nil), clients))
}
