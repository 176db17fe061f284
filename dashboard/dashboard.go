// Package dashboard is a web page for the people who watch and approve what
// an agent does: live calls with their streamed output, the approvals waiting
// for a person (approve, deny, approve for the session, or modify the
// arguments), and the history of calls with per-tool counts, latency and
// error rates.
//
// It is an http.Handler a program mounts on its own server:
//
//	queue := approval.NewQueue()
//	gate := approvalgate.New(queue)
//	mem := metrics.NewMemory()
//	ex, err := executor.New(reg, executor.WithExtensions(metrics.New(metrics.WithMemory(mem)), gate, gate.Guard()))
//	dash, err := dashboard.New(ex, dashboard.WithToken(token), dashboard.WithQueue(queue), dashboard.WithMetrics(mem))
//	http.Handle("/dashboard/", http.StripPrefix("/dashboard", dash))
//
// The page is one HTML file, a style sheet and plain JavaScript, embedded in
// the binary: no CDN, no build step. Live calls come from the executor's
// events over Server-Sent Events; a browser that reads slowly never slows
// the executor (its events are dropped, and the page is told how many it
// missed).
//
// # Safe by default
//
//   - Every request to the API needs the token given to WithToken, as a
//     bearer token (Authorization: Bearer), unless the program puts its
//     own authentication in front with WithAuth. New refuses a
//     configuration with neither. People open the page with the link
//     .../#token=TOKEN: the fragment never reaches a server, the page
//     keeps the token in sessionStorage (this tab, this scheme, host and
//     port alone) and sends it as a bearer token, and reads the event
//     stream with fetch. The token is no cookie: a cookie is bound to a
//     host name, not a port, and went to every server on 127.0.0.1 the
//     person opened. (A link with ?token= is redirected to the fragment
//     form.) Only the page, its script and its style sheet are served
//     without the token: the same bytes in every binary, with no CSRF
//     token and no call in them. The page sends the token only over
//     HTTPS or to a loopback address. Without the token, a request
//     must name an IP address, localhost or a host of WithAllowedOrigins,
//     so that a page whose name a site points at the dashboard's address
//     (DNS rebinding) gets nothing of what WithAuth lets in.
//   - Every request that changes something needs the page's CSRF token in
//     the X-Toolbelt-CSRF header, and a browser's Origin (or Sec-Fetch-Site)
//     must be this site's own.
//   - A strict Content-Security-Policy (scripts and styles from the page's
//     own origin only, no inline script, no frames) and nosniff. The page
//     renders every string a model produced as text, never markup, with
//     control characters shown escaped, so what a person approves is what
//     will run. Only the fields the tool declares secret are masked (not
//     the keys and strings the logs mask by their look: the model chooses
//     those). A modify that keeps the mask in a secret field is refused.
//     A call's streamed output and error text are masked as the logs
//     mask them; the output is sent a little behind, a line once it has
//     ended, so that a secret a chunk splits, or far from its name, is
//     masked whole.
//   - Everyone let in sees and decides every tenant's calls, unless
//     WithTenant names the one tenant a request may see, or the principal
//     WithAuth's middleware puts in the request's context
//     (tool.WithPrincipal) has a tenant: then its approvals, live calls,
//     history and charts are that tenant's alone, and another tenant's
//     approval cannot be decided (it is answered as one not pending).
//   - At most WithMaxStreams pages stream events at once, shared fairly
//     among the tenants WithTenant names.
//   - Each decision names who made it (WithIdentity, or "dashboard"): the
//     approval extension records it in the call's metadata, and the audit
//     extension writes it on the outcome record (decided_by).
package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/internal/origin"
	"github.com/toolbelt-go/toolbelt/tool"
)

//go:embed assets
var assets embed.FS

// CookieName is the cookie in which earlier versions kept the token. A
// cookie is bound to a host name, not a port: the browser sent it to every
// server on the dashboard's host (a dev server, one a model started on
// 127.0.0.1:8000), which could then use the dashboard as the person. The
// dashboard no longer sets it nor accepts it, and clears it when the page
// is opened.
const CookieName = "toolbelt_dashboard"

// CSRFHeader is the header every state-changing request carries.
const CSRFHeader = "X-Toolbelt-CSRF"

// contentSecurityPolicy allows the page's own script, style and API, and
// nothing else: no inline script, no remote resource, no frames, no forms.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the dashboard. Build it with New; it is safe for
// concurrent use.
type Handler struct {
	ex       *executor.Executor
	queue    *approval.Queue
	mem      *metrics.Memory
	token    string
	auth     func(http.Handler) http.Handler
	identity func(*http.Request) string
	tenant   func(*http.Request) (string, bool) // WithTenant
	scoped   bool                               // WithTenant was given
	origins  []string
	names    []string // the host names of origins, lower case
	csrf     string
	buffer   int
	streams  *streamSlots // the open event streams, shared among tenants
	maxStrm  int
	heart    time.Duration
	mux      *http.ServeMux
	root     http.Handler
}

// Option configures New.
type Option func(*Handler)

// WithToken requires token on every request to the API (see the package
// doc). Give people the link with it in the fragment,
// https://host/dashboard/#token=TOKEN (url.QueryEscape it). Use a long
// random value; compare it with nothing else.
func WithToken(token string) Option { return func(h *Handler) { h.token = token } }

// WithAuth puts the program's own authentication in front of the
// dashboard, in place of (or, with WithToken too, in addition to) the
// token: mw wraps the dashboard's handler and must refuse what it does not
// let in. Pair it with WithIdentity so that decisions name the person.
//
// Without WithToken, a request that comes over the network is served only
// when its Host header names an IP address, localhost, or the host of an
// origin given to WithAllowedOrigins; any other name gets 403 before mw
// sees the request. A site can point its own name at the dashboard's
// address (DNS rebinding), and its page's requests then come from the
// person's browser with whatever mw trusts there: the client's address,
// a header a front proxy sets (the page sets it itself). A dashboard
// behind a proxy that passes the name people use (Caddy, nginx with
// proxy_set_header Host $host) lists that origin.
func WithAuth(mw func(http.Handler) http.Handler) Option { return func(h *Handler) { h.auth = mw } }

// WithIdentity names the person behind a request (for example from what
// WithAuth's middleware put in the request's context). The name is the
// DecidedBy of the decisions they make. Without it every decision is made
// by "dashboard".
func WithIdentity(fn func(*http.Request) string) Option {
	return func(h *Handler) { h.identity = fn }
}

// WithTenant limits each person to the calls of one tenant
// (tool.Principal.Tenant): fn names the tenant of the person behind a
// request, typically from what WithAuth's middleware put in its context
// ("" names the principals of no tenant); when its ok is false the
// request is refused (403). The page then lists that tenant's approvals,
// live calls and history only (a history filter naming another tenant is
// refused), draws its charts from that history (not from WithMetrics,
// which counts every tenant's calls), and a decision on another tenant's
// approval is answered as one for an approval no longer pending (404).
// Without WithTenant, a person whose principal WithAuth's middleware put
// in the request's context (tool.WithPrincipal) has a tenant is limited
// to that tenant's calls the same way; everyone else the dashboard lets
// in (a principal of no tenant, or none: the operator of a single-tenant
// app or of the whole instance) sees and decides every tenant's calls.
// With WithTenant too, a request whose principal has a tenant other than
// the one fn names is refused (403) on every path: the queue would show
// it its principal's tenant's approvals, and the page the other tenant's
// history, charts and live calls. A principal of no tenant opens the page
// of the tenant fn names.
func WithTenant(fn func(*http.Request) (tenant string, ok bool)) Option {
	return func(h *Handler) { h.tenant, h.scoped = fn, true }
}

// WithQueue shows the approvals waiting in q and lets the page decide them.
// Without it the page has no approvals panel.
func WithQueue(q *approval.Queue) Option { return func(h *Handler) { h.queue = q } }

// WithMetrics draws per-tool counts, latency and error rates from m (the
// memory recorder of the metrics extension). Without it the page counts
// from the history alone.
func WithMetrics(m *metrics.Memory) Option { return func(h *Handler) { h.mem = m } }

// WithAllowedOrigins adds origins (scheme://host[:port]) other than the
// request's own host that may send state-changing requests, for a page
// served behind a proxy under another name. Without WithToken, their host
// names are also the names, besides IP addresses and localhost, that the
// dashboard answers to in a request's Host header (see WithAuth): give
// the origin people open the page at, e.g. https://ops.example.com.
// Origins are compared without case, with a default port (:443, :80)
// written or left out.
func WithAllowedOrigins(origins ...string) Option {
	return func(h *Handler) { h.origins = append(h.origins, origins...) }
}

// WithEventBuffer sets how many events wait for one browser before newer
// ones are dropped (default 1024).
func WithEventBuffer(n int) Option { return func(h *Handler) { h.buffer = n } }

// DefaultMaxStreams is how many event streams (open pages) a dashboard
// serves at once unless WithMaxStreams says otherwise.
const DefaultMaxStreams = 64

// WithMaxStreams bounds how many event streams (open pages, each one a
// subscriber the executor serves on every event) are open at once
// (default DefaultMaxStreams); a page beyond it gets 503 and retries.
// With WithTenant the bound is shared: a tenant's page that finds it
// reached while another tenant holds at least two streams more than this
// one takes the newest of them (that page reconnects, and retries), so
// one tenant's pages cannot keep another's out.
func WithMaxStreams(n int) Option { return func(h *Handler) { h.maxStrm = n } }

// New returns the dashboard for ex. It refuses a configuration that would
// serve it to anyone: give WithToken or WithAuth.
func New(ex *executor.Executor, opts ...Option) (*Handler, error) {
	if ex == nil {
		return nil, errors.New("dashboard: executor is nil: pass the executor whose calls the page shows")
	}
	h := &Handler{ex: ex, buffer: 1024, heart: 15 * time.Second, maxStrm: DefaultMaxStreams}
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("dashboard: option #%d is nil", i)
		}
		o(h)
	}
	if h.token == "" && h.auth == nil {
		return nil, errors.New("dashboard: no authentication: give dashboard.WithToken(a long random token) or dashboard.WithAuth(your middleware); the page lets its users approve tool calls")
	}
	if h.token != "" && len(h.token) < 16 {
		return nil, fmt.Errorf("dashboard: WithToken: the token is %d characters: use at least 16 random characters (e.g. 32 bytes from crypto/rand, base64)", len(h.token))
	}
	if h.scoped && h.tenant == nil {
		return nil, errors.New("dashboard: WithTenant(nil): give the function that names the tenant of the person behind a request")
	}
	if h.maxStrm <= 0 {
		return nil, fmt.Errorf("dashboard: WithMaxStreams(%d): give a positive number of open pages", h.maxStrm)
	}
	h.streams = newStreamSlots(h.maxStrm)
	if h.buffer <= 0 {
		return nil, fmt.Errorf("dashboard: WithEventBuffer(%d): give a positive size", h.buffer)
	}
	for _, o := range h.origins {
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" {
			return nil, fmt.Errorf("dashboard: WithAllowedOrigins: %q is not an origin: write scheme://host[:port], e.g. https://ops.example.com", o)
		}
		h.names = append(h.names, strings.ToLower(u.Hostname()))
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("dashboard: CSRF token: %w", err)
	}
	h.csrf = base64.RawURLEncoding.EncodeToString(b[:])

	static, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.serveIndex)
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /api/events", h.serveEvents)
	mux.HandleFunc("GET /api/approvals", h.listApprovals)
	mux.HandleFunc("POST /api/approvals/{id}", h.decide)
	mux.HandleFunc("GET /api/history", h.serveHistory)
	mux.HandleFunc("GET /api/stats", h.serveStats)
	mux.HandleFunc("GET /api/session", h.serveSession)
	h.mux = mux

	var root http.Handler = http.HandlerFunc(h.guard)
	if h.auth != nil {
		root = h.auth(root)
	}
	h.root = root
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", contentSecurityPolicy)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cache-Control", "no-store")
	// A window another site opened keeps no handle on the page (it could
	// watch it load and navigate it); no other origin embeds a response.
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	hdr.Set("Cross-Origin-Resource-Policy", "same-origin")
	if h.token == "" && !h.nameServed(r) {
		// Before WithAuth's middleware: what it trusts (the client's
		// address, a header its proxy sets) a rebound page has or sends.
		http.Error(w, fmt.Sprintf("dashboard: Host %q is not a name this dashboard is served at: without WithToken it answers to an IP address, localhost, or the host of an origin given to dashboard.WithAllowedOrigins, so that a site that points its own name at this server (DNS rebinding) cannot use the person's sign-in; add the origin people open the page at with WithAllowedOrigins", r.Host), http.StatusForbidden)
		return
	}
	h.root.ServeHTTP(w, r)
}

// nameServed says whether a dashboard without WithToken serves r, by the
// name in its Host header. A site can point its own name at the
// dashboard's address (DNS rebinding): the browser then takes the
// dashboard for the site's page's own origin, sends it the page's requests
// from the person's machine with any header the page sets, and lets the
// page read the answers; the Origin it sends names that same host. What
// WithAuth's middleware trusts may come with them: the client's address
// (loopback, a VPN peer's), a header a front proxy sets. A token is the
// real name's alone (the page keeps it in that origin's storage), so
// WithToken needs no check. Served: an IP address (a page cannot rebind
// one), a loopback name, a host of WithAllowedOrigins, and a request with
// no connection address (a handler called in process, or over a Unix
// socket, is no browser's).
func (h *Handler) nameServed(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || a == nil {
		return true
	}
	if _, err := netip.ParseAddrPort(a.String()); err != nil {
		return true // not an IP connection
	}
	name := r.Host
	if host, _, err := net.SplitHostPort(name); err == nil {
		name = host
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	if _, err := netip.ParseAddr(name); err == nil || origin.Loopback(name) {
		return true
	}
	return slices.Contains(h.names, strings.ToLower(name))
}

// guard checks the token and, for state changes, the CSRF token and the
// origin, then routes.
func (h *Handler) guard(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/" {
		clearOldCookie(w, r)
	}
	if h.token != "" && !publicFile(r) {
		if t := r.URL.Query().Get("token"); t != "" && r.Method == http.MethodGet && r.URL.Path == "/" {
			if !h.tokenOK(t) {
				http.Error(w, "dashboard: wrong token: open the link the program gave, with its token", http.StatusUnauthorized)
				return
			}
			// The link in its first form (?token=, which servers see and
			// log): the token moves to the fragment, which the browser
			// keeps and never sends, and the page takes it from there.
			// Relative to the address the browser asked for, which is the
			// dashboard's own path (http.Redirect would resolve it against
			// the path left after http.StripPrefix: the host's root).
			q := r.URL.Query()
			q.Del("token")
			loc := "./"
			if len(q) > 0 {
				loc += "?" + q.Encode()
			}
			w.Header().Set("Location", loc+"#"+url.Values{"token": {t}}.Encode())
			w.WriteHeader(http.StatusSeeOther)
			return
		}
		if !h.tokenOK(requestToken(r)) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolbelt dashboard"`)
			msg := "dashboard: a token is required: open the dashboard with the link that carries its token (…/#token=…), or send Authorization: Bearer …"
			if !encryptedOrLocal(r) {
				msg += " (over plain HTTP to a network address the page does not send its token: serve the dashboard over HTTPS)"
			}
			http.Error(w, msg, http.StatusUnauthorized)
			return
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if err := h.sameOrigin(r); err != nil {
			http.Error(w, "dashboard: "+err.Error(), http.StatusForbidden)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(CSRFHeader)), []byte(h.csrf)) != 1 {
			http.Error(w, "dashboard: missing or wrong "+CSRFHeader+" header: reload the page", http.StatusForbidden)
			return
		}
	}
	if h.scoped {
		t, ok := h.tenant(r)
		if !ok {
			http.Error(w, "dashboard: you may see no tenant's calls here", http.StatusForbidden)
			return
		}
		// The queue limits a principal of a tenant to that tenant's
		// approvals; the page's history, charts and live calls would be
		// the tenant fn names. Two answers to "whose page is this" is a
		// person of one tenant reading another's: refused.
		if p, ok := tool.PrincipalFrom(r.Context()); ok && p.Tenant != "" && p.Tenant != t {
			http.Error(w, fmt.Sprintf("dashboard: you are signed in as a principal of tenant %q, and this page is tenant %q's (WithTenant): a person of a tenant sees that tenant's page only", p.Tenant, t), http.StatusForbidden)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), tenantKey{}, t))
	} else if p, ok := tool.PrincipalFrom(r.Context()); ok && p.Tenant != "" {
		// The person WithAuth's middleware names is of a tenant: the page
		// is that tenant's, as the queue's approvals are (approval.Queue).
		r = r.WithContext(context.WithValue(r.Context(), tenantKey{}, p.Tenant))
	}
	h.mux.ServeHTTP(w, r)
}

// publicFiles are the paths served without the token: the page and its
// script and style sheet, the same bytes in every binary, with nothing of
// this dashboard in them (no CSRF token, no call, not even whether it has
// an approvals panel). A browser sends no header of the page's choosing
// when it opens a page or loads its script, and the token is no cookie (a
// cookie goes to every port of the host): the script takes the token from
// the link and sends it to the API, where every path needs it.
var publicFiles = []string{"/", "/static/app.js", "/static/app.css"}

// publicFile says whether r asks for one of publicFiles (the page's link
// with ?token= is not: it is checked, and redirected).
func publicFile(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && slices.Contains(publicFiles, r.URL.Path) &&
		(r.URL.Path != "/" || !r.URL.Query().Has("token"))
}

// clearOldCookie expires the cookie CookieName that earlier versions set
// at the path the dashboard is mounted at: the browser sent it, the
// token, to every server on the host's name, whatever its port.
func clearOldCookie(w http.ResponseWriter, r *http.Request) {
	if _, err := r.Cookie(CookieName); err != nil {
		return
	}
	// Secure as it was set: a browser lets only a secure page replace a
	// Secure cookie.
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: mountPath(r), MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil || forwardedHTTPS(r) || !origin.Loopback(r.Host)})
}

// tenantKey is where guard puts the tenant WithTenant names for a request,
// or, without WithTenant, the tenant of the principal WithAuth's
// middleware put in its context.
type tenantKey struct{}

// scope returns the one tenant whose calls r may see and decide, and
// whether it is limited to one (WithTenant, or a principal of a tenant).
func scope(r *http.Request) (tenant string, scoped bool) {
	tenant, scoped = r.Context().Value(tenantKey{}).(string)
	return tenant, scoped
}

// mountPath is the path the page was requested at, as the browser sees it:
// "/" when the dashboard is the whole server, "/ops/dash/" when a program
// mounts it with http.StripPrefix("/ops/dash", ...): the path of the
// cookie earlier versions set.
func mountPath(r *http.Request) string {
	u, err := url.ParseRequestURI(r.RequestURI)
	if err != nil || u.Opaque != "" || !strings.HasPrefix(u.EscapedPath(), "/") || !strings.HasSuffix(u.EscapedPath(), "/") {
		return "/"
	}
	return u.EscapedPath()
}

// encryptedOrLocal says whether the browser reached the dashboard over
// HTTPS (here, or at a proxy that says so) or at a loopback address. The
// page sends its token only then (elsewhere it would cross the network in
// the clear), and a 401 elsewhere says so.
func encryptedOrLocal(r *http.Request) bool {
	return r.TLS != nil || forwardedHTTPS(r) || origin.Loopback(r.Host)
}

// forwardedHTTPS says whether a proxy says the browser used HTTPS, in
// X-Forwarded-Proto or Forwarded's proto=.
func forwardedHTTPS(r *http.Request) bool {
	for _, v := range r.Header.Values("X-Forwarded-Proto") {
		for _, p := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(p), "https") {
				return true
			}
		}
	}
	for _, v := range r.Header.Values("Forwarded") {
		for _, el := range strings.FieldsFunc(v, func(c rune) bool { return c == ',' || c == ';' }) {
			k, val, ok := strings.Cut(strings.TrimSpace(el), "=")
			if ok && strings.EqualFold(k, "proto") && strings.EqualFold(strings.Trim(val, `"`), "https") {
				return true
			}
		}
	}
	return false
}

func (h *Handler) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(h.token)) == 1
}

// requestToken is the bearer token r carries. A cookie is not read: one
// goes to every port of the host (see CookieName).
func requestToken(r *http.Request) string {
	if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
		return strings.TrimPrefix(a, "Bearer ")
	}
	return ""
}

// sameOrigin refuses a cross-site request: a browser names the page that
// sent it in Origin (and Sec-Fetch-Site); it must be this host, or one of
// the allowed origins.
func (h *Handler) sameOrigin(r *http.Request) error {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return fmt.Errorf("cross-site request refused (Sec-Fetch-Site: %s)", site)
	}
	from := r.Header.Get("Origin")
	if from == "" {
		return nil // not a browser's cross-site request; the CSRF token still applies
	}
	u, err := url.Parse(from)
	if err != nil || u.Host == "" {
		return fmt.Errorf("cross-site request refused (Origin %q)", from)
	}
	if u.Host == r.Host {
		return nil
	}
	// Compared as origins: without case, a default port written or not
	// (browsers leave it out of Origin).
	for _, o := range h.origins {
		if a, err := url.Parse(o); err == nil && origin.Of(a) == origin.Of(u) {
			return nil
		}
	}
	return fmt.Errorf("cross-site request refused (Origin %s is not %s): add it with WithAllowedOrigins if it is yours", from, r.Host)
}

// who names the person behind r.
func (h *Handler) who(r *http.Request) string {
	if h.identity != nil {
		if n := h.identity(r); n != "" {
			return n
		}
	}
	return "dashboard"
}
