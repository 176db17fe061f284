package mcpserver

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/toolbelt-go/toolbelt/internal/origin"
)

// WithAllowedHosts sets the names (host names or IP addresses, without a
// port: any port is taken) by which HTTP clients may reach the server, in
// the request's Host header; case does not count. "*" allows any name,
// for a server behind a proxy that checks Host itself.
//
// A web page can call a server in the browser of a user who can reach it:
// its owner points the page's DNS name at the server's address (DNS
// rebinding), and the browser then takes the server for the page's own
// origin. The request names the page's host, which this option refuses.
// Without the option, a request on a connection to a loopback address
// must name a loopback host (the SDK's check), and a request on a
// connection to any other address that carries no verified bearer token
// (auth.RequireBearerToken in front of HTTPHandler) must name that address
// itself or a loopback host (a container's port forwarded to the host's
// localhost): serving anonymous calls on a LAN address by a DNS name takes
// this option. With the option, every request, authenticated or not, must
// name the connection's address, a loopback host, or one of hosts. A refused request gets 403 Forbidden, before any of its
// JSON-RPC is read, with a message naming the host and this option.
// Names are compared as written: a name with a trailing dot is another
// name (list "tools.lan." for clients that write it so), and
// "localhost." or "127.0.0.1." is refused with a message saying to drop
// the dot (a resolver may ask DNS about localhost.; the SDK refuses both
// on a loopback address). A web page's Origin is checked too
// (WithAllowedOrigins).
func WithAllowedHosts(hosts ...string) Option {
	return func(c *config) {
		c.allowedHosts = append(c.allowedHosts, hosts...)
		c.hostsSet = true
	}
}

// hostRule is the set of Host names a server's HTTP handlers serve
// (WithAllowedHosts).
type hostRule struct {
	explicit bool            // WithAllowedHosts was given
	any      bool            // "*": every name
	names    map[string]bool // lower case, without brackets
}

// newHostRule checks and normalises the names given to WithAllowedHosts.
func newHostRule(explicit bool, hosts []string) (hostRule, error) {
	r := hostRule{explicit: explicit, names: map[string]bool{}}
	for _, h := range hosts {
		if h == "*" {
			r.any = true
			continue
		}
		name := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"))
		if name == "" || strings.ContainsAny(name, "/ \t\r\n@") {
			return hostRule{}, fmt.Errorf("mcpserver: WithAllowedHosts: %q is not a host name: give a name or IP address as clients write it in their URL, without scheme or path", h)
		}
		if _, _, err := net.SplitHostPort(h); err == nil {
			return hostRule{}, fmt.Errorf("mcpserver: WithAllowedHosts: %q has a port: give the name alone (any port is allowed)", h)
		}
		r.names[name] = true
	}
	return r, nil
}

// hostGuard refuses requests whose Host header names neither the address
// the connection came to nor a name the server allows (hostRule), and
// requests a web page of another origin sent (originRule), before the
// SDK reads them.
type hostGuard struct {
	next    http.Handler
	rule    hostRule
	origins originRule
}

func (g hostGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg := g.rule.refusal(r); msg != "" {
		refuse(w, hostRefusedID, msg)
		return
	}
	if msg := g.origins.refusal(r); msg != "" {
		refuse(w, originRefusedID, msg)
		return
	}
	g.next.ServeHTTP(w, r)
}

// refuse answers 403 Forbidden with a JSON-RPC error, which the SDK's
// client reports with its message (it reads none without an id, and the
// request's is unread: id names the refusal), and which any other client
// reads as text.
func refuse(w http.ResponseWriter, id jsonrpc.ID, msg string) {
	// The message quotes the request's headers: no browser may take the
	// answer for anything but JSON.
	w.Header().Set("X-Content-Type-Options", "nosniff")
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}})
	if err != nil {
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(data)
}

// hostRefusedID and originRefusedID are the ids of the JSON-RPC errors
// refused requests get.
var (
	hostRefusedID, _   = jsonrpc.MakeID("host-refused")
	originRefusedID, _ = jsonrpc.MakeID("origin-refused")
)

// refusal is why r is refused, or "" when it is served.
func (rule hostRule) refusal(r *http.Request) string {
	if rule.any {
		return ""
	}
	name := hostName(r.Host)
	if rule.names[name] {
		return ""
	}
	// localhost. or 127.0.0.1. is refused rather than taken for the name
	// without the dot: a resolver may ask DNS about localhost. (Loopback
	// does not take it), browsers write an address without the dot, and
	// the SDK refuses both on a loopback address. The client is told so.
	if bare := strings.TrimSuffix(name, "."); bare != name && bare != "" && (origin.Loopback(bare) || isAddr(bare)) {
		fix := bare
		if _, port, err := net.SplitHostPort(r.Host); err == nil {
			fix = net.JoinHostPort(bare, port)
		}
		return fmt.Sprintf("Forbidden: Host %q ends with a dot: this server takes a loopback name or an address only as written without one (a resolver may ask DNS about a dotted name): have the client use %s", r.Host, fix)
	}
	// The address the connection came to, if it came over IP: a request
	// naming it is the user's own (a page cannot name an address it is
	// not served from), and a Unix socket is beyond a browser's reach.
	local, inProcess := netip.Addr{}, true
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && a != nil {
		inProcess = false
		if ap, err := netip.ParseAddrPort(a.String()); err == nil {
			local = ap.Addr().Unmap().WithZone("")
		}
	}
	if ip, err := netip.ParseAddr(name); err == nil && local.IsValid() && ip.Unmap().WithZone("") == local {
		return ""
	}
	// A loopback name is served on any address: a page is served from it
	// only by the user's own machine, and a container's or VM's port
	// forwarded to the host's localhost sees the request come to its own
	// address (docker run -p 8080:8080, reached as localhost:8080).
	if origin.Loopback(name) {
		return ""
	}
	if !rule.explicit {
		// The default: the SDK checks loopback; a verified token is no
		// page's (a rebound page has none); a handler called in process,
		// or over a Unix socket, is no browser's.
		if inProcess || !local.IsValid() || local.IsLoopback() || auth.TokenInfoFromContext(r.Context()) != nil {
			return ""
		}
		return fmt.Sprintf("Forbidden: Host %q is not this server's address (%s): an unauthenticated request to a server on an address other than loopback must name that address or a host allowed with mcpserver.WithAllowedHosts, so that a web page whose DNS name is pointed at this address (DNS rebinding) cannot call the tools; list the names clients use in WithAllowedHosts, or authenticate requests (auth.RequireBearerToken)", r.Host, local)
	}
	return fmt.Sprintf("Forbidden: Host %q is not among the hosts this server allows (mcpserver.WithAllowedHosts), nor its address: add the name clients use to WithAllowedHosts", r.Host)
}

// hostName is the host of a Host header, without its port or brackets, in
// lower case.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

// isAddr reports whether name is an IP address.
func isAddr(name string) bool {
	_, err := netip.ParseAddr(name)
	return err == nil
}
