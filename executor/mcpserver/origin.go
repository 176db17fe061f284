package mcpserver

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// WithAllowedOrigins sets the web origins ("scheme://host[:port]", as the
// browser's address bar shows the page's address, e.g.
// "http://localhost:6274") whose pages may call the server over HTTP from
// a user's browser, besides the server's own pages. "*" allows any
// origin, for a server behind a gateway that checks Origin itself. Scheme
// and host are compared without case and a default port (:80 for http,
// :443 for https) may be written or left out; an internationalised host
// is given in its ASCII form (xn--...).
//
// A page the user opens on any site can send requests to a server the
// user's machine reaches (127.0.0.1, the LAN), and the browser says where
// it comes from in the Origin and Sec-Fetch-Site headers, which the page
// cannot set. The MCP transports (revision 2025-06-18) require servers to
// validate Origin. A request the browser marks as another origin's
// (Sec-Fetch-Site "cross-site" or "same-site", or, from a browser that
// sends no Sec-Fetch-Site, an Origin whose host is not the Host header:
// net/http.CrossOriginProtection's rule) is refused with 403 Forbidden,
// before any of its JSON-RPC is read, with a message naming the origin
// and this option, unless its origin is listed here or a verified bearer
// token authenticates it (auth.RequireBearerToken in front of
// HTTPHandler: a page of another site holds no token of the user's). A
// request without Origin (the MCP SDKs' clients, MCP Inspector's proxy,
// curl: no browser) is served. Every method but OPTIONS is checked: the
// GET that opens a session's event stream and the DELETE that ends a
// session too. A browser client of another origin also needs CORS
// answers (a CORS middleware in front of HTTPHandler); allowing its
// origin there does not allow it here.
func WithAllowedOrigins(origins ...string) Option {
	return func(c *config) { c.allowedOrigins = append(c.allowedOrigins, origins...) }
}

// originRule is the check of the Origin and Sec-Fetch-Site headers a
// server's HTTP handlers make (WithAllowedOrigins).
type originRule struct {
	any   bool // "*": every origin
	check *http.CrossOriginProtection
}

// newOriginRule checks and normalises the origins given to
// WithAllowedOrigins.
func newOriginRule(origins []string) (originRule, error) {
	r := originRule{check: http.NewCrossOriginProtection()}
	for _, o := range origins {
		if o == "*" {
			r.any = true
			continue
		}
		norm, err := normalOrigin(o)
		if err != nil {
			return originRule{}, fmt.Errorf("mcpserver: WithAllowedOrigins: %q %s", o, err)
		}
		if err := r.check.AddTrustedOrigin(norm); err != nil {
			return originRule{}, fmt.Errorf("mcpserver: WithAllowedOrigins: %q: %w", o, err)
		}
	}
	return r, nil
}

// normalOrigin is origin as a browser writes it in the Origin header:
// scheme and host in lower case, the scheme's default port left out.
func normalOrigin(origin string) (string, error) {
	const form = "give scheme://host[:port] as the browser shows the client page's address, e.g. http://localhost:6274"
	if strings.EqualFold(origin, "null") {
		return "", fmt.Errorf("is the origin of every sandboxed page and local file: it cannot name a client; serve the client from an address of its own and give that")
	}
	for _, c := range []byte(origin) {
		if c >= 0x80 {
			return "", fmt.Errorf("is not ASCII: give an internationalised host in its ASCII form (xn--...), as browsers send it")
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" {
		return "", fmt.Errorf("is not an origin: %s", form)
	}
	if u.User != nil {
		return "", fmt.Errorf("has a user: %s", form)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", fmt.Errorf("has a path, query or fragment: %s", form)
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

// refusal is why r is refused as a request of another origin's page, or
// "" when it is served.
func (rule originRule) refusal(r *http.Request) string {
	if rule.any || r.Method == http.MethodOptions || auth.TokenInfoFromContext(r.Context()) != nil {
		return ""
	}
	checked := r
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		// CrossOriginProtection lets safe methods through, as a GET
		// changes nothing; here a GET opens a session's event stream,
		// which the transports' rule covers too. A shallow copy, judged
		// as a POST.
		checked = r.WithContext(r.Context())
		checked.Method = http.MethodPost
	}
	if rule.check.Check(checked) == nil {
		return ""
	}
	origin, site := r.Header.Get("Origin"), r.Header.Get("Sec-Fetch-Site")
	why := "Forbidden: a web page may call this server's tools only from the server's own origin or one allowed with mcpserver.WithAllowedOrigins (the MCP transports require servers to validate Origin), so that a page a user opens cannot run them from the user's browser"
	if origin == "" {
		return fmt.Sprintf("%s; this request has Sec-Fetch-Site %q and no Origin header: open the server from its own address, or use a client that sends its Origin", why, site)
	}
	if origin == "null" {
		return fmt.Sprintf("%s; this request comes from Origin \"null\" (a sandboxed page or a local file), which cannot be allowed: serve the client page from an address of its own and allow that origin", why)
	}
	if site != "" {
		return fmt.Sprintf("%s; this request comes from Origin %q (Sec-Fetch-Site %q): if that page is a client you trust, add it with WithAllowedOrigins(%q), or authenticate requests (auth.RequireBearerToken)", why, origin, site, origin)
	}
	return fmt.Sprintf("%s; this request's Origin %q does not match its Host %q: if that page is a client you trust, add it with WithAllowedOrigins(%q), or authenticate requests (auth.RequireBearerToken)", why, origin, r.Host, origin)
}
