// Package httptool turns HTTP/REST endpoints into tools.
//
// An HTTP tool is a method, a URL template such as
// "https://api.example.com/repos/{owner}/{repo}/issues", and a mapping of
// the call's arguments to the path, the query, headers and a JSON body
// (Config). Path values are escaped with url.PathEscape ('+' too, as %2B,
// which some servers would read as a space), never spliced raw;
// an empty value, and a value holding a dot segment ("..", "a/../b",
// "..\b") or an empty one ("/", "a//b", "a/") are refused, since servers
// decode %2F before they resolve the path ("a/b" is sent, as a%2Fb).
//
// Credentials come from a named provider function (WithCredential) or an
// environment variable named in the config, never from the model's
// arguments; white space around it (the newline of a value read from a
// file) is trimmed, as net/http sends a header. The credential value is redacted ("[REDACTED]") from
// everything the tool produces: structured output, text, error messages,
// metadata and streamed output events, including response bodies that
// echo it back.
//
// So are the credentials a config writes itself: the fixed text of a
// header (Config.Headers) and of a query parameter (Config.Query, or the
// URL's fixed query) whose name looks secret by the project's rule for
// terse names, the one for environment variables (Authorization,
// Proxy-Authorization, Cookie, X-Api-Key, api-key, X-Auth-Token,
// Private-Token; api_key, access_token, client_secret, and a bare key,
// sig or signature, as Google's APIs and presigned URLs write them). The model never sees the request,
// but servers echo it: httpbin-style /anything endpoints, error pages
// ("invalid key ..."), a redirect's URL, a Content-Type or reason phrase.
// Each such text is masked whole and by its fields: "Bearer sk-live-42ab"
// by "sk-live-42ab" too, a Cookie by each cookie's value. While the body
// streams, the last bytes (twelve times the longest secret's length: its
// hex, \u-escaped) wait for the next chunks, which say whether they begin
// an echo of one (text streams once as much again has arrived, so a body
// sent a byte at a time is not masked again for every byte); a body cut at the size cap (WithMaxResponseBytes) loses
// the last of them that could begin an encoded echo. Text
// an argument fills in is the model's own and is not masked. A config
// credential is masked as it is and in the forms the project's rule for
// echoes finds (JSON-escaped, percent-encoded, hex, base64); one shorter
// than 8 bytes is not masked at all, since masking every "dark" or "v2" a
// response holds would garble it: give a short secret through Auth, which
// is masked at any length. A credential under a name that says nothing
// (X-Tenant, a token in the URL's path) is not known to be one: put it in
// Auth. Structured output is masked inside its strings (keys too) and
// stays JSON of the same shape; a number that is a secret becomes the
// string "[REDACTED]", which an output schema expecting a number then
// refuses; an object that repeats a key keeps only the key's last value,
// as a JSON decoder reads it (a server splicing the model's argument into
// its JSON could otherwise hide an echo in the value the decoder drops).
// The result is masked before the executor, its audit trail and
// its logs see it.
//
// Responses: a JSON object body (by Content-Type) becomes the result's
// structured output; JSON arrays and scalars, and every other body, become a
// text block (structured output must be an object for MCP and output
// schemas). Bodies are capped (default 1 MiB) and a truncated body ends with
// a "[truncated: ...]" marker. Each chunk is also emitted as it arrives with
// tool.EmitOutput(ctx, "body", chunk). A status of 400 or more fails the call
// with the status and a short excerpt of the body: 429 is
// tool.CodeRateLimited and 502/503/504 tool.CodeUnavailable, both retryable
// and honouring Retry-After (seconds or an HTTP date, at most a day) as
// Error.RetryAfter. The call's deadline comes from ctx.
//
// Outbound guard: an optional allow list of hosts (WithAllowedHosts), and no
// connections to loopback, private, site-local, link-local, CGNAT,
// unspecified, multicast, reserved, benchmarking, discard-only or
// cloud-metadata addresses (169.254.169.254, fd00:ec2::254), also when an
// IPv6 address carries one (IPv4-mapped, NAT64, IPv4-compatible,
// IPv4-translated, 6to4, Teredo's server or client; local-use NAT64 is
// refused whole).
// Addresses are checked after DNS resolution in the
// dialer's Control hook, so DNS rebinding and redirects cannot get around
// it; refusals are tool.CodeNetworkPolicy. WithPrivateHosts exempts named
// hosts (tests, local services), and a redirect reaches such a host only
// from exempted hosts. Host names are compared as they are dialled: a
// name that is not ASCII by its IDNA form ("ｌｏｃａｌｈｏｓｔ" is
// localhost). Redirects are followed within the allow list, up to
// WithMaxRedirects (default 5); the credential, cookies, Referer and the
// headers the config maps (Config.Headers) go only to the tool's own
// origin (scheme, host and port), and not again once a redirect has left
// it. So does the request body (Config.Body: the call's arguments): a 307
// or 308, which keeps the method and resends the body, is not followed to
// another origin, and the call fails with tool.CodeNetworkPolicy naming
// the redirect and both origins; point the tool's URL at the origin that
// should receive the body. A 301, 302 or 303 (net/http sends a GET without
// the body) and a 307 of a request without a body are followed as usual.
// Environment proxies are not used:
// the guard must see the address it connects to.
package httptool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/toolbelt-go/toolbelt/internal/origin"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Config is the implementation of an HTTP tool: the "implementation" block
// of a tool file, or a Go literal.
type Config struct {
	// Method is the HTTP method (default GET).
	Method string `json:"method,omitempty"`
	// URL is an absolute http(s) URL template. Placeholders ("{owner}") may
	// appear only in the path; each names a required argument, whose value
	// is path-escaped. The URL may carry a fixed query.
	URL string `json:"url"`
	// Query maps query parameter names to templates ("{state}" or fixed
	// text). A parameter whose arguments are absent or null is left out; an
	// array argument in a template that is exactly "{name}" repeats the
	// parameter once per element. A parameter the URL's query fixes
	// cannot be mapped too.
	Query map[string]string `json:"query,omitempty"`
	// Headers maps header names to templates, as Query does. They are sent
	// to the URL's origin only: a redirect to another origin drops them.
	// Values are one line without control characters; in a Cookie
	// template they are cookie octets (no ';', ',', space, '"' or '\'), so
	// a value cannot add a cookie. The fixed text of a header whose name
	// looks secret (X-Api-Key, Authorization, Cookie) is masked wherever
	// the response echoes it, as a query parameter's is (see the package
	// doc).
	Headers map[string]string `json:"headers,omitempty"`
	// Body lists the arguments sent as the fields of a JSON object body;
	// the single entry "*" sends every argument not used by the URL, query
	// or headers. When the input schema lists properties and admits no
	// others (no additionalProperties other than false, no
	// patternProperties, $ref or combinator at its root), "*" sends only
	// arguments it lists: an undeclared "is_admin" the model adds is not
	// sent. No body is sent when Body is empty.
	Body []string `json:"body,omitempty"`
	// Auth says where the credential comes from and which header carries it.
	Auth *Auth `json:"auth,omitempty"`
}

// Auth is where an HTTP tool's credential comes from. Exactly one of Env and
// Provider is set.
type Auth struct {
	// Header carries the credential (default "Authorization").
	Header string `json:"header,omitempty"`
	// Scheme, when set, prefixes the value ("Bearer" sends "Bearer <token>").
	Scheme string `json:"scheme,omitempty"`
	// Env names the environment variable holding the credential; it is read
	// on every call.
	Env string `json:"env,omitempty"`
	// Provider names a CredentialFunc registered with WithCredential.
	Provider string `json:"provider,omitempty"`
}

// Client holds the guarded HTTP client that HTTP tools share: one
// connection pool and one outbound policy. Tools built by one Kind share a
// Client.
type Client struct {
	o     *options
	g     *guard
	tr    *http.Transport
	httpc *http.Client
}

type redirectKey struct{}

// redirectState carries what the redirect check needs for one call: the
// credential's header and the headers the tool's config maps, all
// written for the tool's own origin.
type redirectState struct {
	authHeader string
	mapped     []string
}

// NewClient returns a client configured by opts.
func NewClient(opts ...Option) *Client {
	o := newOptions(opts)
	g := &guard{allow: o.allow, private: o.private}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            g.dialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    16,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: maxHeaderBytes,
	}
	c := &Client{o: o, g: g, tr: tr}
	c.httpc = &http.Client{Transport: tr, CheckRedirect: c.checkRedirect}
	return c
}

func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.o.maxRedirects {
		return fmt.Errorf("stopped after %d redirects", c.o.maxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return &PolicyError{Host: req.URL.Host, Reason: "a redirect to a " + req.URL.Scheme + " URL is not followed"}
	}
	if err := c.g.checkHost(req.URL.Hostname()); err != nil {
		return err
	}
	// A host exempted by WithPrivateHosts is reached by redirect only
	// from exempted hosts: the client is shared by every tool of a Kind,
	// and a public endpoint must not lead a call into the internal
	// service another tool is allowed to call.
	if c.g.private[normHost(req.URL.Hostname())] {
		for _, prev := range via {
			if !c.g.private[normHost(prev.URL.Hostname())] {
				return &PolicyError{Host: req.URL.Hostname(), Reason: "a redirect from a public host into a private one (WithPrivateHosts) is not followed"}
			}
		}
	}
	// A 307 or 308 keeps the method and resends the body (net/http's
	// GetBody), wherever the Location points. The body holds the call's
	// arguments, written for the tool's own origin, as its headers are;
	// unlike a header it cannot be dropped without changing the request,
	// so the redirect is not followed.
	if req.Body != nil && req.Body != http.NoBody && origin.Of(req.URL) != origin.Of(via[0].URL) {
		status := "307 or 308"
		if req.Response != nil {
			status = strconv.Itoa(req.Response.StatusCode)
		}
		return &PolicyError{Host: req.URL.Host, Reason: fmt.Sprintf(
			"a %s redirect from %s to another origin (%s) would resend the request body, which is sent only to the tool's own origin: the redirect is not followed; if the tool is meant to send its requests to %s, set its URL (Config.URL) to that origin",
			status, origin.Of(via[0].URL), origin.Of(req.URL), origin.Of(req.URL))}
	}
	// Credentials go only to the origin they were given for: the same
	// scheme, host and port. net/http drops Authorization when the host
	// changes, but not when only the port or scheme does, and never a
	// custom credential header: drop them ourselves. Once the chain has
	// left the origin they stay dropped, also when it comes back (net/http
	// copies the first request's headers at every hop): the other origin
	// chose where on this one the request goes.
	left := origin.Of(req.URL) != origin.Of(via[0].URL)
	for _, prev := range via[1:] {
		left = left || origin.Of(prev.URL) != origin.Of(via[0].URL)
	}
	if left {
		if st, ok := req.Context().Value(redirectKey{}).(*redirectState); ok {
			if st.authHeader != "" {
				req.Header.Del(st.authHeader)
			}
			// The config's headers (a fixed API key, a user's token
			// from an argument) were written for this origin too.
			for _, h := range st.mapped {
				req.Header.Del(h)
			}
		}
		req.Header.Del("Authorization")
		req.Header.Del("Proxy-Authorization")
		req.Header.Del("Cookie")
		// net/http sets Referer to the URL redirected from: its path and
		// query carry the call's arguments and the tool's fixed query.
		req.Header.Del("Referer")
	}
	return nil
}

// CloseIdleConnections closes the client's idle connections.
func (c *Client) CloseIdleConnections() { c.tr.CloseIdleConnections() }

// Tool is an HTTP endpoint as a tool.Tool.
type Tool struct {
	spec    tool.Spec
	cfg     Config
	method  string
	url     template
	query   []mapped
	headers []mapped
	// headerNames are the names of headers, dropped when a redirect
	// leaves the tool's origin.
	headerNames []string
	body        []string // nil: no body; ["*"]: the rest
	// declared, when not nil, narrows "*" to the schema's properties.
	declared map[string]bool
	used     map[string]bool
	// secrets are the credential values the config writes itself
	// (configSecrets), masked in everything Run returns.
	secrets []string
	client  *Client
}

type mapped struct {
	name string
	t    template
}

// New builds an HTTP tool with its own Client. Every problem in cfg is
// reported at once, as *tool.ConfigError values joined with errors.Join.
func New(spec tool.Spec, cfg Config, opts ...Option) (*Tool, error) {
	return NewClient(opts...).New(spec, cfg)
}

// FromSpec builds an HTTP tool from a spec and its implementation block
// encoded as JSON (a Config); unknown keys are errors. Its signature
// matches the registry loader's kind factories.
func FromSpec(spec tool.Spec, impl json.RawMessage, opts ...Option) (tool.Tool, error) {
	return NewClient(opts...).FromSpec(spec, impl)
}

// Kind returns a factory for the registry loader's "http" kind:
//
//	loader.Loader{Kinds: map[string]loader.KindFunc{"http": httptool.Kind(opts...)}}
//
// The tools it builds share one Client.
func Kind(opts ...Option) func(tool.Spec, json.RawMessage) (tool.Tool, error) {
	return NewClient(opts...).FromSpec
}

// FromSpec is the package-level FromSpec on this client.
func (c *Client) FromSpec(spec tool.Spec, impl json.RawMessage) (tool.Tool, error) {
	// Unknown keys are reported together with every other problem, so one
	// pass over a tool file shows them all.
	var errs []error
	var top map[string]json.RawMessage
	if err := json.Unmarshal(impl, &top); err != nil {
		return nil, &tool.ConfigError{Message: "implementation must be a JSON object: " + err.Error()}
	}
	errs = append(errs, unknownKeys("", top, configKeys)...)
	if a, ok := top["auth"]; ok {
		var am map[string]json.RawMessage
		if json.Unmarshal(a, &am) == nil {
			errs = append(errs, unknownKeys("auth.", am, authKeys)...)
		}
	}
	var cfg Config
	if err := json.Unmarshal(impl, &cfg); err != nil {
		return nil, errors.Join(append(errs, decodeError(err))...)
	}
	t, err := c.New(spec, cfg)
	if err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

var (
	configKeys = []string{"method", "url", "query", "headers", "body", "auth"}
	authKeys   = []string{"header", "scheme", "env", "provider"}
)

func unknownKeys(prefix string, m map[string]json.RawMessage, known []string) []error {
	var errs []error
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(known, k) {
			errs = append(errs, &tool.ConfigError{Field: prefix + k, Message: fmt.Sprintf("unknown key %q: known keys are %s", k, strings.Join(known, ", "))})
		}
	}
	return errs
}

func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &tool.ConfigError{Field: te.Field, Message: fmt.Sprintf("is a JSON %s: want %s", te.Value, te.Type)}
	}
	return &tool.ConfigError{Message: "implementation does not decode: " + err.Error()}
}

var methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

// New builds an HTTP tool that uses this client.
func (c *Client) New(spec tool.Spec, cfg Config) (*Tool, error) {
	t := &Tool{spec: spec, cfg: cfg, client: c, used: map[string]bool{}}
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &tool.ConfigError{Field: field, Message: fmt.Sprintf(format, a...)})
	}
	t.method = strings.ToUpper(strings.TrimSpace(cfg.Method))
	if t.method == "" {
		t.method = http.MethodGet
	}
	if !slices.Contains(methods, t.method) {
		bad("method", "%q is not a supported method: use one of %s", cfg.Method, strings.Join(methods, ", "))
	}
	props, required, haveProps := schemaProps(spec.InputSchema)
	checkArg := func(field, name string, mustRequire bool) {
		if !haveProps {
			return
		}
		if !props[name] {
			bad(field, "{%s} names no property of the input schema: add %q to input_schema.properties", name, name)
		} else if mustRequire && !required[name] {
			bad(field, "path placeholder {%s} must be a required argument: add %q to input_schema.required", name, name)
		}
	}
	if cfg.URL == "" {
		bad("url", "is missing: give the endpoint, e.g. https://api.example.com/items/{id}")
	} else if ut, err := parseTemplate(cfg.URL); err != nil {
		bad("url", "%v", err)
	} else if err := checkURLTemplate(ut); err != nil {
		bad("url", "%v", err)
	} else if err := c.checkURLHost(ut); err != nil {
		bad("url", "%v", err)
	} else {
		t.url = ut
		for _, a := range ut.args() {
			t.used[a] = true
			checkArg("url", a, true)
		}
	}
	for _, p := range c.o.allow {
		if err := checkAllowPattern(p); err != nil {
			errs = append(errs, err)
		}
	}
	for _, h := range slices.Sorted(maps.Keys(c.o.private)) {
		if err := checkPrivateHost(h); err != nil {
			errs = append(errs, err)
		}
	}
	authHeader := ""
	if a := cfg.Auth; a != nil {
		authHeader = a.Header
		if authHeader == "" {
			authHeader = "Authorization"
		}
		if !validHeaderName(authHeader) {
			bad("auth.header", "%q is not a valid header name", a.Header)
		}
		switch {
		case a.Env == "" && a.Provider == "":
			bad("auth", "names no credential source: set env (an environment variable) or provider (registered with httptool.WithCredential)")
		case a.Env != "" && a.Provider != "":
			bad("auth", "sets both env and provider: choose one")
		case a.Provider != "":
			if c.o.creds[a.Provider] == nil {
				bad("auth.provider", "%q is not registered: pass httptool.WithCredential(%q, fn)", a.Provider, a.Provider)
			}
		case strings.ContainsAny(a.Env, "= \x00"):
			bad("auth.env", "%q is not an environment variable name", a.Env)
		}
	}
	var fixedQuery url.Values
	if u, err := url.Parse(cfg.URL); err == nil && t.url.src != "" {
		fixedQuery = u.Query()
	}
	t.query = compileMap("query", cfg.Query, &errs, func(name string, tpl template) {
		if fixedQuery.Has(name) {
			// Both would be sent, and a server taking the last value
			// would use the mapped one.
			bad("query."+name, "%q is also fixed in the URL's query: remove it from one of them", name)
		}
		for _, a := range tpl.args() {
			t.used[a] = true
			checkArg("query."+name, a, false)
		}
	})
	t.headers = compileMap("headers", cfg.Headers, &errs, func(name string, tpl template) {
		if !validHeaderName(name) {
			bad("headers."+name, "%q is not a valid header name", name)
		}
		if authHeader != "" && strings.EqualFold(name, authHeader) {
			bad("headers."+name, "%s carries the credential (auth): it cannot also be mapped", name)
		}
		for _, a := range tpl.args() {
			t.used[a] = true
			checkArg("headers."+name, a, false)
		}
	})
	for _, m := range t.headers {
		t.headerNames = append(t.headerNames, m.name)
	}
	t.secrets = configSecrets(t.headers, t.query, fixedQuery)
	if len(cfg.Body) > 0 {
		if t.method == http.MethodGet || t.method == http.MethodHead {
			bad("body", "a %s request has no body: use query, or method POST", t.method)
		}
		for i, b := range cfg.Body {
			switch {
			case b == "*" && len(cfg.Body) > 1:
				bad(fmt.Sprintf("body.%d", i), `"*" (every other argument) must be the only entry`)
			case b == "*":
			default:
				checkArg(fmt.Sprintf("body.%d", i), b, false)
			}
		}
		t.body = cfg.Body
		if cfg.Body[0] == "*" {
			t.declared = declaredOnly(spec.InputSchema)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

func compileMap(field string, m map[string]string, errs *[]error, each func(string, template)) []mapped {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]mapped, 0, len(keys))
	for _, k := range keys {
		tpl, err := parseTemplate(m[k])
		if err != nil {
			*errs = append(*errs, &tool.ConfigError{Field: field + "." + k, Message: err.Error()})
			continue
		}
		each(k, tpl)
		out = append(out, mapped{k, tpl})
	}
	return out
}

// checkURLTemplate parses the template with its placeholders filled by a
// marker and checks that they sit only in the path of an absolute http(s)
// URL.
func checkURLTemplate(t template) error {
	const marker = "zzplaceholderzz"
	var b strings.Builder
	for _, p := range t.parts {
		if p.arg != "" {
			b.WriteString(marker)
		} else {
			b.WriteString(p.lit)
		}
	}
	u, err := url.Parse(b.String())
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", t.src, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q must be an absolute http or https URL", t.src)
	case u.Host == "":
		return fmt.Errorf("%q has no host", t.src)
	case strings.Contains(u.Host, marker):
		return fmt.Errorf("%q puts a placeholder in the host: the host must be fixed", t.src)
	case u.User != nil:
		return fmt.Errorf("%q carries credentials: put them in auth, never in the URL", t.src)
	case strings.Contains(u.RawQuery, marker):
		return fmt.Errorf("%q puts a placeholder in the query: map query parameters under query", t.src)
	case u.Fragment != "" || strings.Contains(t.src, "#"):
		return fmt.Errorf("%q has a fragment: remove the part from # on", t.src)
	}
	return nil
}

// checkURLHost refuses a URL whose fixed host the client's allow list
// refuses: every call of the tool would fail with network_policy.
func (c *Client) checkURLHost(t template) error {
	u, err := url.Parse(t.src)
	if err != nil {
		return nil // checkURLTemplate judged the template with its placeholders filled
	}
	if err := c.g.checkHost(u.Hostname()); err != nil {
		return fmt.Errorf("%q names host %q, which the client's allow list (httptool.WithAllowedHosts) refuses: every call would fail; fix the host or add it to the list", t.src, normHost(u.Hostname()))
	}
	return nil
}

// declaredOnly returns the properties the body's "*" may send: those the
// schema's root declares, when it declares properties and admits nothing
// else (no additionalProperties or patternProperties, no $ref or
// combinator that could add properties). nil means every argument.
func declaredOnly(raw json.RawMessage) map[string]bool {
	var root map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &root) != nil {
		return nil
	}
	for _, k := range []string{"additionalProperties", "patternProperties", "unevaluatedProperties", "$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "if", "dependentSchemas"} {
		if _, ok := root[k]; ok {
			if k == "additionalProperties" && string(bytes.TrimSpace(root[k])) == "false" {
				continue
			}
			return nil
		}
	}
	props, _, ok := schemaProps(raw)
	if !ok {
		return nil
	}
	return props
}

// schemaProps returns the root properties and required names of an object
// schema, and whether the schema lists properties at all (a schema built
// with $ref or combinators is not checked).
func schemaProps(raw json.RawMessage) (props, required map[string]bool, ok bool) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil || s.Properties == nil {
		return nil, nil, false
	}
	props, required = map[string]bool{}, map[string]bool{}
	for k := range s.Properties {
		props[k] = true
	}
	for _, r := range s.Required {
		required[r] = true
	}
	return props, required, true
}

// Spec returns the tool's spec.
func (t *Tool) Spec() tool.Spec { return t.spec }

// Config returns the tool's configuration.
func (t *Tool) Config() Config { return t.cfg }

// CloseIdleConnections closes idle connections of the tool's client.
func (t *Tool) CloseIdleConnections() { t.client.CloseIdleConnections() }

// request builds the outgoing request from the call's arguments.
func (t *Tool) request(ctx context.Context, args map[string]any) (*http.Request, error) {
	path, err := t.url.expand(args, escapePath)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(path)
	if err != nil {
		return nil, &argError{fmt.Sprintf("the arguments make an invalid URL: %v", err)}
	}
	if len(t.query) > 0 {
		q := u.Query()
		for _, m := range t.query {
			if !m.t.present(args) {
				continue
			}
			if name, ok := m.t.single(); ok {
				if arr, isArr := args[name].([]any); isArr {
					for _, el := range arr {
						s, err := scalar(name, el)
						if err != nil {
							return nil, &argError{fmt.Sprintf("argument %q: elements must be strings, numbers or booleans", name)}
						}
						q.Add(m.name, s)
					}
					continue
				}
			}
			s, err := m.t.expand(args, nil)
			if err != nil {
				return nil, err
			}
			q.Add(m.name, s)
		}
		u.RawQuery = q.Encode()
	}
	var body []byte
	if t.body != nil {
		obj := map[string]any{}
		if t.body[0] == "*" {
			for k, v := range args {
				if !t.used[k] && (t.declared == nil || t.declared[k]) {
					obj[k] = v
				}
			}
		} else {
			for _, k := range t.body {
				if v, ok := args[k]; ok {
					obj[k] = v
				}
			}
		}
		if body, err = json.Marshal(obj); err != nil {
			return nil, &argError{fmt.Sprintf("the body does not encode as JSON: %v", err)}
		}
	}
	var rd *bytes.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	var req *http.Request
	if rd != nil {
		req, err = http.NewRequestWithContext(ctx, t.method, u.String(), rd)
	} else {
		req, err = http.NewRequestWithContext(ctx, t.method, u.String(), nil)
	}
	if err != nil {
		return nil, &argError{fmt.Sprintf("the arguments make an invalid request: %v", err)}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if t.client.o.userAgent != "" {
		req.Header.Set("User-Agent", t.client.o.userAgent)
	}
	for _, m := range t.headers {
		if !m.t.present(args) {
			continue
		}
		check := checkHeaderValue
		if http.CanonicalHeaderKey(m.name) == "Cookie" {
			check = checkCookieValue
		}
		v, err := m.t.expand(args, check)
		if err != nil {
			return nil, err
		}
		req.Header.Set(m.name, v)
	}
	return req, nil
}

// headerSpace is the white space net/http trims from a header value's
// ends when it writes it (textproto.TrimString).
const headerSpace = " \t\r\n"

// credential returns the credential value for one call, without white
// space around it: net/http would send the value trimmed (or refuse a
// newline), and the server would echo the bare token, which masking the
// untrimmed value does not find.
func (t *Tool) credential(ctx context.Context) (string, error) {
	a := t.cfg.Auth
	if a == nil {
		return "", nil
	}
	if a.Provider != "" {
		v, err := t.client.o.creds[a.Provider](ctx)
		if err != nil {
			// The provider's error is not shown: it might quote the secret.
			return "", tool.Errorf(tool.CodeInternal, "credential provider %q failed", a.Provider)
		}
		v = strings.Trim(v, headerSpace)
		if v == "" {
			return "", tool.Errorf(tool.CodeInternal, "credential provider %q returned an empty credential", a.Provider)
		}
		return v, nil
	}
	v, ok := os.LookupEnv(a.Env)
	v = strings.Trim(v, headerSpace)
	if !ok || v == "" {
		return "", tool.Errorf(tool.CodeInternal, "credential environment variable %s is not set: set it before calling %q", a.Env, t.spec.Name)
	}
	return v, nil
}

// Run sends the request the call's arguments describe and turns the
// response into a result. The credential and the credential values the
// config writes are masked in everything it returns.
func (t *Tool) Run(ctx context.Context, call tool.Call) (*tool.Result, error) {
	red := newRedactor(t.secrets...)
	res, err := t.run(ctx, call, red)
	return red.mask(res, err)
}

// run is Run before masking; it adds the call's credential to red.
func (t *Tool) run(ctx context.Context, call tool.Call, red *redactor) (*tool.Result, error) {
	args := map[string]any{}
	if len(bytes.TrimSpace(call.Args)) > 0 {
		d := json.NewDecoder(bytes.NewReader(call.Args))
		d.UseNumber()
		if err := d.Decode(&args); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments are not a JSON object: %v", err)
		}
	}
	req, err := t.request(ctx, args)
	if err != nil {
		var ae *argError
		if errors.As(err, &ae) {
			return nil, tool.NewError(tool.CodeInvalidArguments, ae.msg)
		}
		return nil, err
	}
	host := req.URL.Hostname()
	if err := t.client.g.checkHost(host); err != nil {
		return nil, &tool.Error{Code: tool.CodeNetworkPolicy, Message: err.Error(), Err: err}
	}
	secret, err := t.credential(ctx)
	if err != nil {
		return nil, err
	}
	red.add(secret)
	st := &redirectState{mapped: t.headerNames}
	if secret != "" {
		value := secret
		if t.cfg.Auth.Scheme != "" {
			value = t.cfg.Auth.Scheme + " " + secret
		}
		st.authHeader = t.cfg.Auth.Header
		if st.authHeader == "" {
			st.authHeader = "Authorization"
		}
		req.Header.Set(st.authHeader, value)
	}
	req = req.WithContext(context.WithValue(ctx, redirectKey{}, st))
	resp, err := t.client.httpc.Do(req)
	if err != nil {
		return nil, t.transportError(ctx, req, err, red)
	}
	defer resp.Body.Close()
	return t.response(ctx, req, resp, red)
}

// transportError classifies a failed round trip.
func (t *Tool) transportError(ctx context.Context, req *http.Request, err error, red *redactor) error {
	what := req.Method + " " + req.URL.Host
	var pe *PolicyError
	switch {
	case errors.As(err, &pe):
		return &tool.Error{Code: tool.CodeNetworkPolicy, Message: red.string(pe.Error()), Err: pe}
	case ctx.Err() == context.DeadlineExceeded:
		return &tool.Error{Code: tool.CodeTimeout, Message: what + " did not answer before the call's deadline", Retryable: true, Err: ctx.Err()}
	case ctx.Err() != nil:
		return &tool.Error{Code: tool.CodeCancelled, Message: what + " was cancelled", Err: ctx.Err()}
	case strings.Contains(err.Error(), "stopped after"):
		return &tool.Error{Code: tool.CodeUnavailable, Message: fmt.Sprintf("%s redirected more than %d times", what, t.client.o.maxRedirects)}
	}
	// Strip the URL that url.Error prefixes; keep the cause.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &tool.Error{Code: tool.CodeUnavailable, Message: red.string(fmt.Sprintf("%s failed: %v", what, err)), Retryable: true}
}
