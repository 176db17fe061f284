package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// MetaError is the _meta key of a failed result under which the server puts
// the call's *tool.Error as JSON ({"code","message","retryable",
// "retry_after"}), so that a toolbelt client (tool/mcptool) gets the exact
// error back. Other clients read the "code: message" text block.
const MetaError = "toolbelt/error"

// PrincipalFunc maps an MCP request (its session, HTTP header, bearer token
// info in req.Extra) to the principal the call acts for. Returning the zero
// Principal leaves the call to the principal carried by ctx, if any, and
// otherwise anonymous.
type PrincipalFunc func(ctx context.Context, req *mcp.CallToolRequest) tool.Principal

// Option configures a Server.
type Option func(*config)

type config struct {
	name, version string
	instructions  string
	principal     PrincipalFunc
	filter        registry.Filter
	pageSize      int
	logger        *slog.Logger
	progressBuf   int
	elicitWait    time.Duration
	maxSessions   int
	maxCalls      int

	// Who may reach the HTTP handlers (host.go, origin.go).
	allowedHosts   []string
	hostsSet       bool
	allowedOrigins []string
}

// WithImplementation sets the server name and version sent to clients
// (default "toolbelt", "v1").
func WithImplementation(name, version string) Option {
	return func(c *config) { c.name, c.version = name, version }
}

// WithInstructions sets the instructions sent to clients at initialisation.
func WithInstructions(s string) Option { return func(c *config) { c.instructions = s } }

// WithPrincipal sets how a request maps to a tool.Principal (default:
// anonymous, or the principal carried by the handler's context). Over
// Stateful HTTP, fn is also called for each HTTP request, with req.Extra
// (the header and the verified token) set, empty params and no session,
// to bind each session to the principal that opened it: name the
// principal from req.Extra (as PrincipalFromToken and PrincipalFromHeader
// do), or a session is bound to the context's principal only.
func WithPrincipal(fn PrincipalFunc) Option { return func(c *config) { c.principal = fn } }

// WithFilter serves only the registry's tools that pass f (for example an
// agent's tools, or a risk ceiling). The executor still runs any
// registered tool, so calls to filtered-out names are refused here as
// unknown tools before they reach it. Whatever the filter, tools/list
// lists each principal only the tools the executor's auth extension lets
// it call (extension/auth's Authorize, asked without running anything).
func WithFilter(f registry.Filter) Option { return func(c *config) { c.filter = f } }

// WithPageSize sets how many tools one tools/list page holds (default: the
// SDK's, 1000).
func WithPageSize(n int) Option { return func(c *config) { c.pageSize = n } }

// WithLogger sets the SDK server's logger.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithProgressBuffer sets how many progress notifications of one call may
// wait to be sent; beyond it, output events are dropped rather than slowing
// the tool (default 256).
func WithProgressBuffer(n int) Option { return func(c *config) { c.progressBuf = n } }

// WithElicitTimeout sets how long a call waits for the client to answer an
// elicitation sent while it runs (clients of protocol revisions before
// 2026-07-28; default approval.DefaultQueueTimeout, 5 minutes). A call
// waiting for its approval holds its place in the resource lock queues, so
// a client that never answers would otherwise stall every later call on
// the same resource, whoever makes it. Negative: no bound but the call's
// context.
func WithElicitTimeout(d time.Duration) Option { return func(c *config) { c.elicitWait = d } }

// WithMaxSessions sets how many stateful HTTP sessions one principal (an
// id and tenant; all anonymous clients are one) may hold open at once
// (default 1000). A request that would open one more is refused with 503
// Service Unavailable until the principal ends one (DELETE) or one
// expires (SessionTimeout). A session costs the server memory and a
// goroutine, and a client opens thousands a second; without a bound one
// client could exhaust the process. Negative: no bound.
func WithMaxSessions(n int) Option { return func(c *config) { c.maxSessions = n } }

// WithMaxCallsInProgress sets how many tools/call requests one principal
// (an id and tenant; all anonymous clients are one) may have in progress
// at once on this server, over every session and transport (default
// DefaultMaxCallsInProgress). The SDK runs every request on a goroutine of
// its own as it arrives and queues nothing, so without a bound one client
// starting calls of a slow tool holds as many goroutines, as much memory
// and as much of the executor (WithMaxConcurrency is shared by all
// clients) as it likes. A call over the bound is answered at once, without
// running, with a retryable tool.CodeConcurrencyLimit error, and reported
// to the executor's observers (executor.ReportRefused). A call is in
// progress from its arrival to its answer, waiting for an executor slot,
// a lock or an elicitation answer included. The principal is the one the
// call runs as (WithPrincipal, else the request context's): a
// PrincipalFunc that lets a client name itself (an unchecked header)
// lets it have the bound many times over, and a host whose many users
// reach it as one principal (anonymous, behind a gateway) shares one bound
// among them: name the principals, or raise the bound. Every other request
// but ping and initialize counts against the same bound, as the principal
// a call on it would run as (the PrincipalFunc, given the request's
// session and req.Extra with empty params, else its context's): the SDK
// parks a subscriptions/listen until the client
// cancels it, and resources and prompts run the host's handlers. One over
// the bound gets a JSON-RPC error naming the option. Negative: no bound.
func WithMaxCallsInProgress(n int) Option { return func(c *config) { c.maxCalls = n } }

// Server serves the tools of an executor's registry as an MCP server. Every
// call runs through ex.Execute: validation, the extension chain, the
// backend, output validation. It is safe for concurrent use.
type Server struct {
	ex  *executor.Executor
	srv *mcp.Server
	cfg config

	idPrefix string
	seq      atomic.Uint64

	mu    sync.Mutex
	names map[string]string // tools currently added to srv: name -> the exported definition served

	calls   *callsInProgress
	hosts   hostRule
	origins originRule
	authz   bool // the executor has an authorizer: tools/list is cut per principal (listAuthorized)
}

// New builds a server for ex's registry. Each tool is added with the
// definition of registry.Export(registry.MCP): our own input and output
// schemas, as raw JSON, with no second schema inference by the SDK. Tools
// registered later are served after Sync.
func New(ex *executor.Executor, opts ...Option) (*Server, error) {
	if ex == nil {
		return nil, fmt.Errorf("mcpserver: executor is nil: pass executor.New(reg, ...)")
	}
	cfg := config{name: "toolbelt", version: "v1", progressBuf: 256}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.pageSize < 0 {
		return nil, fmt.Errorf("mcpserver: page size %d is negative: use 0 for the default or a positive size", cfg.pageSize)
	}
	if cfg.progressBuf <= 0 {
		cfg.progressBuf = 256
	}
	if cfg.elicitWait == 0 {
		cfg.elicitWait = approval.DefaultQueueTimeout
	}
	if cfg.maxSessions == 0 {
		cfg.maxSessions = 1000
	}
	if cfg.maxCalls == 0 {
		cfg.maxCalls = DefaultMaxCallsInProgress
	}
	hosts, err := newHostRule(cfg.hostsSet, cfg.allowedHosts)
	if err != nil {
		return nil, err
	}
	origins, err := newOriginRule(cfg.allowedOrigins)
	if err != nil {
		return nil, err
	}
	s := &Server{ex: ex, cfg: cfg, names: map[string]string{}, idPrefix: "mcp-" + rand.Text()[:8] + "-",
		calls: newCallsInProgress(cfg.maxCalls), hosts: hosts, origins: origins, authz: hasAuthorizer(ex)}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: cfg.name, Version: cfg.version}, &mcp.ServerOptions{
		Instructions: cfg.instructions,
		Logger:       cfg.logger,
		PageSize:     cfg.pageSize,
		// Advertise tools even while the registry is empty.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	s.srv.AddReceivingMiddleware(s.boundRequests, s.listAuthorized)
	if err := s.Sync(); err != nil {
		return nil, err
	}
	return s, nil
}

// Server returns the SDK server, to add resources or prompts, or to run it
// on another transport.
func (s *Server) Server() *mcp.Server { return s.srv }

// Sync brings the served tools in line with the registry: new tools are
// added, removed ones withdrawn, and a tool replaced under the same name
// (Remove, then Register) served as it now is (clients are notified of the
// change). Until Sync, a call to a served name runs the registry's tool of
// that name only if it passes WithFilter.
func (s *Server) Sync() error {
	exp, err := s.ex.Registry().Export(registry.MCP, registry.WithFilter(s.cfg.filter))
	if err != nil {
		return fmt.Errorf("mcpserver: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := make(map[string]bool, len(exp.Names))
	for i, name := range exp.Names {
		keep[name] = true
		def := string(exp.Tools[i])
		if served, ok := s.names[name]; ok && served == def {
			continue
		}
		t, err := mcpTool(exp.Tools[i])
		if err != nil {
			return fmt.Errorf("mcpserver: tool %q: %w", name, err)
		}
		if err := s.add(t); err != nil {
			return fmt.Errorf("mcpserver: tool %q: %w", name, err)
		}
		s.names[name] = def
	}
	var gone []string
	for name := range s.names {
		if !keep[name] {
			gone = append(gone, name)
			delete(s.names, name)
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveTools(gone...)
	}
	return nil
}

// add adds t, turning the SDK's panics on a malformed tool into an error.
func (s *Server) add(t *mcp.Tool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the MCP SDK refused the tool: %v", p)
		}
	}()
	s.srv.AddTool(t, s.handler(t.Name))
	return nil
}

// exported is one entry of registry.Export(registry.MCP).
type exported struct {
	Name         string               `json:"name"`
	Title        string               `json:"title"`
	Description  string               `json:"description"`
	InputSchema  json.RawMessage      `json:"inputSchema"`
	OutputSchema json.RawMessage      `json:"outputSchema"`
	Annotations  *mcp.ToolAnnotations `json:"annotations"`
}

func mcpTool(def json.RawMessage) (*mcp.Tool, error) {
	var e exported
	if err := json.Unmarshal(def, &e); err != nil {
		return nil, fmt.Errorf("decode export: %w", err)
	}
	t := &mcp.Tool{Name: e.Name, Title: e.Title, Description: e.Description, InputSchema: e.InputSchema, Annotations: e.Annotations}
	if len(e.OutputSchema) > 0 {
		t.OutputSchema = e.OutputSchema
	}
	return t, nil
}

// ServeStdio serves one client on stdin and stdout until the client
// disconnects or ctx is done.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.srv.Run(ctx, &mcp.StdioTransport{})
}

// HTTPOption configures HTTPHandler.
type HTTPOption func(*mcp.StreamableHTTPOptions)

// Stateful serves streamable HTTP with sessions (Mcp-Session-Id). Clients
// of revisions before 2026-07-28 cancel a call with a notification sent on
// another request; only a session can route it to the call, so choose
// Stateful when such clients must be able to stop a running tool (and when
// the server must ask them something: elicitation). Sessions live in this
// process: put the instances behind sticky routing, or use the stateless
// default.
//
// A session belongs to the principal that opened it: the principal the
// server runs that request's calls as (the PrincipalFunc's, given the HTTP
// request's header and verified token, else the one a middleware put in
// the request's context with tool.WithPrincipal). The SDK gives every call
// of a session the context of the request that opened it, so a context's
// principal is the opener's for every call; and anyone holding a session's
// id could otherwise end it, cancel its calls or run calls on it. A
// request on the session from another principal (another id, tenant or
// set of roles; their order does not count) is refused with 403
// Forbidden: the client opens a session of its own. A user whose roles
// changed (a refreshed token) is told so, and opens a new session. (The
// SDK likewise refuses a session to another verified token's user, by its
// id alone.)
//
// A session that gets no request for 30 minutes (see SessionTimeout) is
// closed, so that sessions a client opens and abandons do not live as long
// as the process; a later request on it gets 404 and the client opens a new
// one. A call running, or waiting for an elicitation answer, keeps its
// session open. One principal holds at most WithMaxSessions sessions open.
func Stateful() HTTPOption { return func(o *mcp.StreamableHTTPOptions) { o.Stateless = false } }

// SessionTimeout sets how long a stateful session may go without a request
// before it is closed (default 30 minutes); a negative d keeps idle
// sessions open until the client ends them, which lets any client hold
// server memory for as long as the process lives.
func SessionTimeout(d time.Duration) HTTPOption {
	return func(o *mcp.StreamableHTTPOptions) { o.SessionTimeout = d }
}

// HTTPHandler returns a streamable HTTP handler, stateless unless Stateful
// is given, so that clients of the current protocol revision and of older
// ones are served alike. Mount it where the endpoint should live
// (mux.Handle("/mcp", h)). A client that ends its request (2026-07-28
// clients cancel so) cancels the call in either mode; progress
// notifications reach the client on the call's response stream. A
// JSON-RPC batch (revision 2025-03-26) of more than 16 messages is refused
// with 400 Bad Request before any of them runs: the SDK runs every
// request of a batch at once, each holding its answer until the client
// reads it, so one request of a few MiB held tens of thousands. A request
// whose Host header names neither the address it came to nor a host
// allowed by WithAllowedHosts is refused with 403 Forbidden when it is
// unauthenticated and came to an address other than loopback, and always
// when WithAllowedHosts is given (see there: DNS rebinding). A request a
// web page of another origin sent (Origin, Sec-Fetch-Site) is refused
// with 403 Forbidden unless WithAllowedOrigins lists that origin or a
// verified bearer token authenticates it (see there).
func (s *Server) HTTPHandler(opts ...HTTPOption) http.Handler {
	// PropagateRequestCancellation: without it the SDK lets the call of a
	// 2026-07-28 request that ended (cancelled, or dropped by the network)
	// run on, holding its place in WithMaxCallsInProgress until it times
	// out.
	o := &mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	if !o.Stateless && o.SessionTimeout == 0 {
		o.SessionTimeout = defaultSessionTimeout
	}
	limit := o.MaxRequestBodyBytes
	if limit == 0 {
		limit = mcp.DefaultMaxRequestBodyBytes
	}
	// The Host and Origin checks come before anything reads the body; a
	// session's owner is judged from the header alone, before them.
	h := hostGuard{next: batchBound{next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, o), limit: limit},
		rule: s.hosts, origins: s.origins}
	if o.Stateless {
		return h
	}
	return newSessionOwners(h, s.srv, s.cfg.maxSessions, s.httpPrincipal)
}

// callPrincipal is the principal a tools/call acts for: the
// PrincipalFunc's, else the one ctx carries (which the executor would take
// for a call that names none), else nobody.
func (s *Server) callPrincipal(ctx context.Context, req *mcp.CallToolRequest) tool.Principal {
	var p tool.Principal
	if s.cfg.principal != nil && req != nil {
		p = s.cfg.principal(ctx, req)
	}
	return extension.CallPrincipal(ctx, p)
}

// httpPrincipal is the principal of an HTTP request, judged as its calls'
// are (callPrincipal): the PrincipalFunc is given a request that carries
// r's header and verified token (req.Extra), empty params and no session.
func (s *Server) httpPrincipal(r *http.Request) tool.Principal {
	ctx := r.Context()
	return s.guardedPrincipal(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{},
		Extra: &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(ctx), Header: r.Header}})
}

// requestPrincipal is the principal of an MCP request other than a
// tools/call, judged as a call's is (callPrincipal): the PrincipalFunc is
// given a request with req's session and extra (header, token) and empty
// params.
func (s *Server) requestPrincipal(ctx context.Context, req mcp.Request) tool.Principal {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	return s.guardedPrincipal(ctx, &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{}, Extra: req.GetExtra()})
}

// guardedPrincipal is callPrincipal for a request made up from what is
// known outside a tools/call: a PrincipalFunc that panics on it (it reads
// what is missing) names no one.
func (s *Server) guardedPrincipal(ctx context.Context, req *mcp.CallToolRequest) tool.Principal {
	var p tool.Principal
	if pf := s.cfg.principal; pf != nil {
		func() {
			defer func() { _ = recover() }()
			p = pf(ctx, req)
		}()
	}
	return extension.CallPrincipal(ctx, p)
}

// served reports whether name is served and its tool in the registry now
// passes the filter (a tool replaced since the last Sync may not).
func (s *Server) served(name string) bool {
	e, ok := s.ex.Registry().Lookup(name)
	if !ok || !s.cfg.filter.Match(&e.Spec) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok = s.names[name]
	return ok
}

// unknownTool is the answer to a tools/call of a tool that is not served,
// or that the call's principal may not call (tools/list hides it): the
// SDK's answer to a name it does not serve, word for word, so that a
// client guessing names cannot tell a hidden tool from none.
func unknownTool(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
}

// handler runs one tools/call through the executor.
func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !s.served(name) {
			return nil, unknownTool(name)
		}
		call := tool.Call{ID: s.idPrefix + strconv.FormatUint(s.seq.Add(1), 10), Name: name, Provider: "mcp"}
		var rd *round
		if req != nil {
			if req.Params != nil {
				call.Args = req.Params.Arguments
			}
			if req.Session != nil {
				call.Session = req.Session.ID()
			}
		}
		// The principal the executor will run the call as (it takes ctx's
		// when the call names none), counted against its bound.
		call.Principal = s.callPrincipal(ctx, req)
		if !s.calls.acquire(call.Principal) {
			res := tool.Failure(&call, s.calls.overBound())
			s.ex.ReportRefused(ctx, &call, res)
			if !s.mayCall(call.Principal, name) {
				return nil, unknownTool(name) // as the executor answers it below
			}
			return toMCP(res), nil
		}
		defer s.calls.release(call.Principal)
		if req != nil {
			rd = &round{session: req.Session, wait: s.cfg.elicitWait}
			if req.Params != nil {
				rd.responses = req.Params.InputResponses
			}
			ctx = context.WithValue(ctx, roundKey{}, rd)
		}
		var pr *progress
		if req != nil && req.Params != nil && req.Session != nil {
			if tok := req.Params.GetProgressToken(); tok != nil {
				pr = startProgress(ctx, req.Session, tok, s.cfg.progressBuf)
				ctx = tool.WithEmitter(ctx, pr.emit)
			}
		}
		res, _ := s.ex.Execute(ctx, call)
		if pr != nil {
			pr.stop()
		}
		if res.Error != nil && res.Error.Code == tool.CodeNotFound && !s.mayCall(call.Principal, name) {
			// The executor answers a call of a tool the principal may
			// not call as a name no tool has (auth's refusal went to
			// its extensions and observers); so does the server.
			return nil, unknownTool(name)
		}
		if rd != nil {
			if reqs := rd.pendingRequests(); len(reqs) > 0 {
				// An elicitation approver needs the human's answer: the
				// client fulfils these and calls again (SEP-2322); the SDK
				// does the round trip itself for older clients.
				return &mcp.CallToolResult{InputRequests: reqs}, nil
			}
		}
		return toMCP(res), nil
	}
}
