package openai

import (
	"github.com/openai/openai-go/v3/option"

	"github.com/toolbelt-go/toolbelt/providers/internal/guard"
)

// DefaultMaxResponseBytes bounds the bytes read from one response body
// (a stream's too) when WithMaxResponseBytes is not given. The SDK reads a
// body whole, and a stream's text adds up, so an endpoint (a broken or
// hostile compatible server, a proxy) could otherwise send more than the
// memory holds.
const DefaultMaxResponseBytes = guard.DefaultMaxBytes

// ErrResponseTooLarge is returned (wrapped) by Next when a response body
// is larger than the bound.
var ErrResponseTooLarge = guard.ErrTooLarge

// WithMaxResponseBytes sets the bound on the bytes read from one response
// body (default DefaultMaxResponseBytes; zero or less keeps it).
func WithMaxResponseBytes(n int64) Option { return func(m *Model) { m.maxBytes = n } }

// MaxResponseElements bounds the array elements of an answer, and of each
// event of a stream (Chat Completions and Responses): the SDK decodes each
// element of a list (choices, tool calls, output items) into a value of
// its types, whatever the element ("{}", "null"), so that a body of
// 768 KiB asked for 0.4 to 1.2 GB, and a chat stream's single chunk of
// 768 KiB for 358 MB. An answer or event of more is refused before the
// SDK decodes it, with ErrResponseTooLarge. What a stream's chunks add up
// to is bounded by MaxStreamToolCalls.
const MaxResponseElements = guard.MaxElements

// MaxResponseMembers bounds the object members of an answer, and of each
// event of a stream, as MaxResponseElements bounds their array elements:
// the SDK keeps each member its types do not name (in ExtraFields, with
// its field metadata), about 570 bytes for a member "k":0 of 9, so that
// 100,000 unknown keys on a message, a body of 930 KB, asked for 57 MB.
// An answer or event of more is refused before the SDK decodes it, with
// ErrResponseTooLarge.
const MaxResponseMembers = guard.MaxMembers

// WithResponsesMaxResponseBytes is WithMaxResponseBytes for a
// ResponsesModel.
func WithResponsesMaxResponseBytes(n int64) ResponsesOption {
	return func(m *ResponsesModel) { m.maxBytes = n }
}

// ErrPlainHTTP is returned (wrapped) by Next when the client's base URL
// (option.WithBaseURL, OPENAI_BASE_URL, azure.WithEndpoint) is http:// to
// a host that is not this machine and WithInsecureHTTP (for a
// ResponsesModel, WithResponsesInsecureHTTP) is not given: the key and the
// conversation would cross the network in clear text. Nothing is sent.
var ErrPlainHTTP = guard.ErrPlainHTTP

// WithInsecureHTTP allows a base URL http:// to a host that is not this
// machine (localhost, 127.0.0.0/8, ::1), for a model server you trust on
// your own network; the key and the conversation then cross it in clear
// text. http to this machine (Ollama, vLLM, llama.cpp on localhost) needs
// no option.
func WithInsecureHTTP() Option { return func(m *Model) { m.insecureHTTP = true } }

// WithResponsesInsecureHTTP is WithInsecureHTTP for a ResponsesModel.
func WithResponsesInsecureHTTP() ResponsesOption {
	return func(m *ResponsesModel) { m.insecureHTTP = true }
}

// requestGuard is the guard of one turn's requests and the request
// options that install it: the response body bounded, the key redacted
// from error responses (see guard.Guard), and redirects followed only
// within the endpoint's origin (guard.SameOriginRedirects) with a copy of
// the client's HTTP client that clients gives out. The SDK refuses a
// request to another origin in its transport too, but not for Azure with
// azure.WithUnsafeAllowHTTP, which follows a loopback endpoint's redirect
// to any port of the host with the Api-Key. A base URL http:// to another
// machine is refused unless insecureHTTP, which insecureOption names
// (guard.SchemeCheck).
func requestGuard(max int64, optionName string, clients *guard.Clients, insecureHTTP bool, insecureOption string) (*guard.Guard, []option.RequestOption) {
	g := guard.New(max, "raise it with "+optionName, "openai")
	return g, []option.RequestOption{guard.SchemeCheck(option.RequestOption(nil), insecureHTTP, insecureOption),
		option.WithMiddleware(g.Middleware), guard.SameOriginRedirects(option.RequestOption(nil), clients)}
}
