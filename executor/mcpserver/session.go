package mcpserver

import (
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolbelt-go/toolbelt/tool"
)

// sessionHeader is the streamable HTTP header naming a session.
const sessionHeader = "Mcp-Session-Id"

// minPrune is how many owned sessions a stateful handler keeps before it
// first forgets those that have ended (a variable for tests).
var minPrune = 1024

// defaultSessionTimeout is how long a stateful session may go without a
// request before it is closed, when SessionTimeout does not say (a
// variable for tests).
var defaultSessionTimeout = 30 * time.Minute

// sessionOwners binds each session of a stateful handler to the principal
// that opened it: the principal the server runs that request's calls as
// (Server.httpPrincipal: the PrincipalFunc's, else the request context's).
// The SDK gives every call of a session the context of the request that
// opened it, so a principal a middleware puts in each request's context
// reaches the calls only as the opener's: a request on the session from
// anyone else (another user, tenant or set of roles) would run as the
// opener. And where a PrincipalFunc names each request's principal (a
// proxy's header, a token), anyone else holding the session's id would
// use it: end it, cancel its calls, run calls on it. Such a request is
// refused instead, as the SDK refuses a session to another verified
// token's user (it compares the user id alone; here the tenant and roles
// count too).
type sessionOwners struct {
	next      http.Handler
	srv       *mcp.Server
	principal func(*http.Request) tool.Principal

	max int // open sessions per principal (WithMaxSessions); <= 0: no bound

	mu      sync.Mutex
	owners  map[string]tool.Principal
	pruneAt int
}

func newSessionOwners(next http.Handler, srv *mcp.Server, max int, principal func(*http.Request) tool.Principal) *sessionOwners {
	return &sessionOwners{next: next, srv: srv, max: max, principal: principal, owners: map[string]tool.Principal{}, pruneAt: minPrune}
}

// open counts the live sessions of this handler that p's user opened.
// Sessions opened at the same moment may take a user a little past the
// bound.
func (o *sessionOwners) open(p tool.Principal) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for ss := range o.srv.Sessions() {
		if owner, ok := o.owners[ss.ID()]; ok && sameUser(owner, p) {
			n++
		}
	}
	return n
}

// samePrincipal reports whether a and b are one principal: the same id and
// tenant (sameUser) and the same set of roles, in any order (a host may
// list them from a map or a directory in another order each request).
func samePrincipal(a, b tool.Principal) bool {
	return sameUser(a, b) && slices.Equal(roleSet(a.Roles), roleSet(b.Roles))
}

// sameUser reports whether a and b have the same id and tenant.
func sameUser(a, b tool.Principal) bool { return a.ID == b.ID && a.Tenant == b.Tenant }

// roleSet is roles sorted, without repeats (a copy).
func roleSet(roles []string) []string {
	if len(roles) == 0 {
		return nil
	}
	s := slices.Clone(roles)
	slices.Sort(s)
	return slices.Compact(s)
}

// ServeHTTP implements http.Handler.
func (o *sessionOwners) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := o.principal(r)
	if sid := r.Header.Get(sessionHeader); sid != "" {
		o.mu.Lock()
		owner, known := o.owners[sid]
		o.mu.Unlock()
		if known && !samePrincipal(owner, p) {
			if sameUser(owner, p) {
				// The same user, whose roles changed (a refreshed
				// token): the session's calls would run with the old
				// ones. Which roles stays unsaid.
				http.Error(w, "Forbidden: this session was opened with other roles than this request carries (the principal's roles changed since): open a new session", http.StatusForbidden)
				return
			}
			// Whose it is stays unsaid.
			http.Error(w, "Forbidden: this session was opened by another principal; open a session of your own", http.StatusForbidden)
			return
		}
		// An unknown id is the SDK's to refuse (no such session).
		o.next.ServeHTTP(w, r)
		return
	}
	// No session yet: the response may open one; it is bound to p before
	// the client can learn its id. A user holding WithMaxSessions open
	// sessions ends one first.
	if r.Method == http.MethodPost && o.max > 0 && o.open(p) >= o.max {
		w.Header().Set("Retry-After", "60")
		http.Error(w, "Service Unavailable: too many open sessions for this principal; end one (DELETE) or reuse one before opening another", http.StatusServiceUnavailable)
		return
	}
	ow := &ownerWriter{ResponseWriter: w, o: o, p: p}
	o.next.ServeHTTP(ow, r)
	ow.record()
}

// own binds sid to p, and now and then forgets the sessions that ended.
func (o *sessionOwners) own(sid string, p tool.Principal) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.owners[sid]; ok {
		return
	}
	o.owners[sid] = p
	if len(o.owners) < o.pruneAt {
		return
	}
	live := map[string]bool{}
	for ss := range o.srv.Sessions() {
		live[ss.ID()] = true
	}
	for id := range o.owners {
		if !live[id] && id != sid {
			delete(o.owners, id)
		}
	}
	o.pruneAt = max(minPrune, 2*len(o.owners))
}

// ownerWriter records the session a response opens (its Mcp-Session-Id
// header) before the first byte of the response goes out.
type ownerWriter struct {
	http.ResponseWriter
	o    *sessionOwners
	p    tool.Principal
	done bool
}

func (w *ownerWriter) record() {
	if w.done {
		return
	}
	w.done = true
	if sid := w.Header().Get(sessionHeader); sid != "" {
		w.o.own(sid, w.p)
	}
}

func (w *ownerWriter) WriteHeader(code int) {
	w.record()
	w.ResponseWriter.WriteHeader(code)
}

func (w *ownerWriter) Write(b []byte) (int, error) {
	w.record()
	return w.ResponseWriter.Write(b)
}

// Flush flushes the response, as the SDK does for its event streams.
func (w *ownerWriter) Flush() {
	w.record()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *ownerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
