package mcptool

//lint:file-ignore SA1019 roots and sampling are deprecated as of MCP 2026-07-28 (SEP-2577), but servers of earlier revisions still ask for them: WithRoots and WithSampling serve those.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Progress is one progress notification from a server.
type Progress struct {
	// Tool and CallID name the call the notification belongs to (empty when
	// the token is not one this client sent, or is too old to remember).
	Tool   string
	CallID string
	// Token is the progress token the client sent with the call (one
	// longer than 256 bytes, which this client did not send, is cut).
	Token string
	// Progress, Total and Message are the notification's fields; a
	// message longer than 4 KiB is cut, and says so.
	Progress float64
	Total    float64
	Message  string
}

// ProgressData is the JSON a call's progress notifications are emitted as,
// on the "progress" output stream (tool.EmitOutput(ctx, "progress", data)).
type ProgressData struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// Option configures a Client.
type Option func(*options)

type options struct {
	prefix     string
	impl       *mcp.Implementation
	httpClient *http.Client
	stderr     io.Writer
	terminate  time.Duration
	late       func(Progress)
	spec       func(*tool.Spec)
	trustAnn   bool
	logger     *slog.Logger
	roots      []*mcp.Root
	rootsSet   bool
	sampling   func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
	elicit     func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
}

// WithRoots advertises the roots capability and answers the server's
// roots/list with roots (file:// URIs of the directories it may use).
// Without it the client advertises no roots: a server that would ask for
// them must do without, instead of waiting for an answer that never comes.
func WithRoots(roots ...*mcp.Root) Option {
	return func(o *options) { o.roots, o.rootsSet = roots, true }
}

// WithSampling answers the server's sampling/createMessage requests (a
// server asking the client's model for a completion) with fn, and
// advertises the sampling capability. Without it the client advertises
// none. fn answers at most 16 of the server's sampling and elicitation
// requests at once (the others get an error without calling it), and the
// context of those it answers ends when the client is closed.
func WithSampling(fn func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)) Option {
	return func(o *options) { o.sampling = fn }
}

// WithElicitation answers the server's elicitation/create requests (a
// server asking the user something, such as an approval) with fn, and
// advertises the elicitation capability. Without it the client advertises
// none. The bound of WithSampling holds: at most 16 of the server's
// sampling and elicitation requests are answered at once, and Close ends
// those being answered.
func WithElicitation(fn func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) Option {
	return func(o *options) { o.elicit = fn }
}

// asks reports whether the server may send the client requests: the
// standalone HTTP stream must then be open to receive them.
func (o *options) asks() bool { return o.rootsSet || o.sampling != nil || o.elicit != nil }

// WithPrefix prefixes every tool name, so that two servers with a tool of
// the same name can share a registry ("gh_" + "search" = "gh_search"). The
// remote name is still what the server is called with.
func WithPrefix(prefix string) Option { return func(o *options) { o.prefix = prefix } }

// WithImplementation sets the client name and version sent to the server.
func WithImplementation(name, version string) Option {
	return func(o *options) { o.impl = &mcp.Implementation{Name: name, Version: version} }
}

// WithHTTPClient sets the HTTP client of an HTTP target (headers, TLS, auth).
// Unless the client has its own CheckRedirect, redirects are followed only
// within the server's origin (scheme, host and port), at most 10: a
// credential the client's transport adds to every request must not follow
// the server's redirect elsewhere.
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.httpClient = c } }

// WithStderr sends a Stdio server's stderr to w (default: discarded).
func WithStderr(w io.Writer) Option { return func(o *options) { o.stderr = w } }

// WithTerminateTimeout sets how long Close waits for a Stdio server to exit
// after its stdin is closed before signalling it (default 5s, then SIGTERM,
// then SIGKILL).
func WithTerminateTimeout(d time.Duration) Option { return func(o *options) { o.terminate = d } }

// OnLateProgress receives progress notifications that arrive when no call
// is waiting for them: after their call's result (servers and transports
// may deliver a notification after the response), or with a token this
// client did not send. While a call runs, its notifications are emitted as
// output events on its context instead. fn must not block.
func OnLateProgress(fn func(Progress)) Option { return func(o *options) { o.late = fn } }

// WithSpec lets the caller adjust each tool's spec as it is built from the
// server's listing: set Risk, RequiresApproval, Category, Timeout. The name
// must stay valid and unique.
func WithSpec(fn func(*tool.Spec)) Option { return func(o *options) { o.spec = fn } }

// WithTrustedAnnotations takes the server's annotations at their word
// when deriving a listed tool's risk: a tool the server calls read-only
// becomes tool.RiskLow, which the approval extension lets run without
// asking, one it says is not destructive tool.RiskMedium. Without it every
// listed tool is what it would be had the server said nothing: destructive
// and open-world (the MCP defaults), tool.RiskHigh. MCP annotations are
// hints a server may get wrong or lie about, and clients must treat them
// as untrusted unless the server is trusted: a claim may not lower the
// risk (a medium tool is assessed warning, which a policy approving
// warnings runs unasked), and the read-only and idempotent hints are left
// out of the spec's Annotations, so the cache, retries and job stores do
// not act on them.
func WithTrustedAnnotations() Option { return func(o *options) { o.trustAnn = true } }

// WithLogger sets the SDK client's logger, which also receives a warning
// for each remote tool Tools leaves out (see Client.Skipped).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// Client is a connection to one MCP server, re-established on demand: when
// the server dies, the failing call reports tool.CodeUnavailable and the
// next call dials the target again. It is safe for concurrent use.
type Client struct {
	target Target
	opts   options
	client *mcp.Client

	mu      sync.Mutex
	cur     *conn
	closed  bool
	dialing *dialing // the dial under way, if any

	// stop is cancelled by Close: it ends a dial under way.
	stop       context.Context
	cancelStop context.CancelFunc

	seq    atomic.Uint64
	routes sync.Map // token -> *route

	recentMu sync.Mutex
	recent   []string // tokens of finished calls still remembered, oldest first

	tasks     taskWatch // execution.taskSupport of listed tools, read off the wire
	skippedMu sync.Mutex
	skipped   []Skipped // what the last Tools call left out
}

// remembered is how many finished calls' tokens are kept, so that late
// progress can still be attributed to its call.
const remembered = 256

// maxToken is how much of a progress token Progress.Token keeps.
const maxToken = 256

type conn struct {
	cs    *mcp.ClientSession
	cmd   *exec.Cmd
	pidfd int // of cmd's process (see killGroup), or -1
	done  chan struct{}
	once  sync.Once
	// endAnswers ends the answers to the server's requests still in
	// flight over HTTP: closing the session waits for them.
	endAnswers context.CancelFunc

	// pages mirrors the SDK's cache of tools/list pages (see
	// maxListedBytes): the size of each page it holds, by cursor, and
	// their sum (pagesSize).
	pagesMu   sync.Mutex
	pages     map[string]int
	pagesSize int
}

// Connect dials target, initialises an MCP session and returns the client.
// ctx bounds the dial only.
func Connect(ctx context.Context, target Target, opts ...Option) (*Client, error) {
	if target.dial == nil {
		return nil, errors.New("mcptool: empty Target: use mcptool.Stdio, mcptool.HTTP or mcptool.Transport")
	}
	c := &Client{target: target}
	c.stop, c.cancelStop = context.WithCancel(context.Background())
	for _, o := range opts {
		if o != nil {
			o(&c.opts)
		}
	}
	if c.opts.prefix != "" && !tool.ValidName(c.opts.prefix+"x") {
		return nil, fmt.Errorf("mcptool: prefix %q cannot start a tool name: use letters, digits, '_' and '-', starting with a letter or '_'", c.opts.prefix)
	}
	impl := c.opts.impl
	if impl == nil {
		impl = &mcp.Implementation{Name: "toolbelt", Version: "v1"}
	}
	// Advertise only what this client serves (the SDK's default
	// advertises roots, which a server may then wait for in vain).
	caps := &mcp.ClientCapabilities{}
	if c.opts.rootsSet {
		caps.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	// The server's questions are answered a few at a time, and end when
	// the client is closed.
	a := &asks{places: make(chan struct{}, maxAsksInFlight), stop: c.stop}
	copts := &mcp.ClientOptions{
		Logger:                      c.opts.logger,
		ProgressNotificationHandler: c.onProgress,
		Capabilities:                caps,
		ElicitationHandler:          answerer(a, c.opts.elicit),
	}
	if c.opts.sampling != nil {
		copts.CreateMessageHandler = answerer(a, c.opts.sampling)
	}
	c.client = mcp.NewClient(impl, copts)
	if len(c.opts.roots) > 0 {
		c.client.AddRoots(c.opts.roots...)
	}
	if _, err := c.session(ctx); err != nil {
		c.cancelStop()
		return nil, err
	}
	return c, nil
}

// Target returns the target the client dials.
func (c *Client) Target() Target { return c.target }

// PID returns the process id of a Stdio server currently connected, or 0.
func (c *Client) PID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil || c.cur.cmd == nil || c.cur.cmd.Process == nil {
		return 0
	}
	return c.cur.cmd.Process.Pid
}

// Session returns the current SDK session (dialling if needed), for calls
// this package does not wrap (resources, prompts).
func (c *Client) Session(ctx context.Context) (*mcp.ClientSession, error) {
	cn, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	return cn.cs, nil
}

// Close ends the session and, for a Stdio target, the server's process
// group. It is idempotent. Calls made after Close fail with
// tool.CodeUnavailable.
func (c *Client) Close() error {
	c.mu.Lock()
	cn := c.cur
	c.cur, c.closed = nil, true
	c.mu.Unlock()
	c.cancelStop()
	if cn == nil {
		return nil
	}
	return cn.close()
}

// dialing is a dial under way: the calls that need a connection meanwhile
// wait for it (or for their own context), not for the client's lock.
type dialing struct {
	done chan struct{}
	err  error
	own  bool // err is the dialing call's own context ending
}

// session returns the live connection, dialling when there is none or the
// last one ended. One call dials at a time, without holding the client's
// lock: a server that never answers the dial keeps that call waiting
// until its context ends, and the others until theirs do, and Close ends
// the dial.
func (c *Client) session(ctx context.Context) (*conn, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, tool.Errorf(tool.CodeUnavailable, "MCP client for %s is closed", c.target)
		}
		if c.cur != nil {
			select {
			case <-c.cur.done:
				old := c.cur
				c.cur = nil
				c.mu.Unlock()
				_ = old.end() // the session is over
				continue
			default:
				cn := c.cur
				c.mu.Unlock()
				return cn, nil
			}
		}
		if d := c.dialing; d != nil {
			c.mu.Unlock()
			select {
			case <-d.done:
				if d.err != nil && !d.own {
					return nil, d.err
				}
				continue // connected, or the dialing call gave up: look again
			case <-ctx.Done():
				return nil, tool.AsError(ctx.Err())
			}
		}
		d := &dialing{done: make(chan struct{})}
		c.dialing = d
		c.mu.Unlock()

		cn, err := c.dial(ctx)
		c.mu.Lock()
		c.dialing = nil
		if err == nil && c.closed {
			err = tool.Errorf(tool.CodeUnavailable, "MCP client for %s is closed", c.target)
		} else if err == nil {
			c.cur = cn
		}
		d.err, d.own = err, ctx.Err() != nil
		close(d.done)
		c.mu.Unlock()
		if err != nil && cn != nil {
			_ = cn.close()
			cn = nil
		}
		return cn, err
	}
}

// dial connects to the target and initialises a session; Close ends it.
func (c *Client) dial(ctx context.Context) (*conn, error) {
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.stop, cancel)()
	t, cmd, err := c.target.dial(dctx, &c.opts)
	if err != nil {
		return nil, tool.Errorf(tool.CodeUnavailable, "connect to MCP server %s: %w", c.target, err)
	}
	var g *procGuard
	pidfd := new(int) // set when cmd starts, read once Connect has returned
	*pidfd = -1
	if cmd != nil {
		pidfd = pidfdFor(cmd)
		g = &procGuard{Transport: t, cmd: cmd, pidfd: pidfd}
		t = g
	}
	// The SDK's Connect can outlive its context: when the server does not
	// answer initialize, it gives the cancellation notice up to 5 s to be
	// delivered first. The call does not wait for that.
	type connected struct {
		cs  *mcp.ClientSession
		err error
	}
	ch := make(chan connected, 1)
	answers, endAnswers := context.WithCancel(context.Background())
	go func() {
		cs, err := c.client.Connect(dctx, c.tasks.watch(t, answers), nil)
		ch <- connected{cs, err}
	}()
	var cs *mcp.ClientSession
	select {
	case r := <-ch:
		cs, err = r.cs, r.err
		if err != nil && cmd != nil && cmd.Process != nil {
			killGroup(cmd, *pidfd)
			_ = cmd.Wait()
		}
		if err != nil {
			closePidfd(*pidfd)
		}
	case <-dctx.Done():
		// A server that never answered is ended now, not when the SDK
		// gives up (closing its stdin, it waits for the exit up to the
		// terminate timeout): calls retried against a hung server would
		// each leave one running, with its pipes and goroutines, for
		// seconds after they returned.
		if g != nil {
			g.abandon()
		}
		go func() {
			if r := <-ch; r.cs != nil {
				endAnswers()
				_ = r.cs.Close()
			}
			if cmd != nil && cmd.Process != nil {
				_ = cmd.Wait()
			}
			closePidfd(*pidfd)
		}()
		cs, err = nil, dctx.Err()
	}
	if err != nil {
		endAnswers()
		if ctx.Err() != nil {
			return nil, tool.AsError(ctx.Err())
		}
		if c.stop.Err() != nil {
			return nil, tool.Errorf(tool.CodeUnavailable, "MCP client for %s is closed", c.target)
		}
		return nil, tool.Errorf(tool.CodeUnavailable, "connect to MCP server %s: %w", c.target, err)
	}
	cn := &conn{cs: cs, cmd: cmd, pidfd: *pidfd, done: make(chan struct{}), endAnswers: endAnswers}
	watchExit(cmd, cn.pidfd)
	go func() {
		_ = cs.Wait()
		endAnswers() // a session that ended writes no more answers
		close(cn.done)
	}()
	return cn, nil
}

// drop forgets cn (if it is still current) and closes it.
func (c *Client) drop(cn *conn) {
	c.mu.Lock()
	if c.cur == cn {
		c.cur = nil
	}
	c.mu.Unlock()
	_ = cn.end()
}

// close ends the session gracefully: a stdio server gets its stdin
// closed and the terminate timeout to exit.
func (cn *conn) close() error { return cn.shut(false) }

// end closes a session that is over or broken: a stdio server's group is
// killed first, as no answer can come back from it (waiting the
// terminate timeout for it held the failing call that long).
func (cn *conn) end() error { return cn.shut(true) }

func (cn *conn) shut(kill bool) error {
	var err error
	cn.once.Do(func() {
		if kill && cn.cmd != nil {
			// Reaped already if the session saw its stdout end (the
			// SDK closes the transport then): killGroup checks.
			killGroup(cn.cmd, cn.pidfd)
		}
		if cn.endAnswers != nil {
			cn.endAnswers() // Close waits for the answers in flight
		}
		err = cn.cs.Close()
		<-cn.done
		if cn.cmd != nil {
			// The server is reaped (CommandTransport waits for it);
			// anything it left in its process group goes too.
			killGroup(cn.cmd, cn.pidfd)
			closePidfd(cn.pidfd)
		}
	})
	if closedCleanly(err) {
		return nil
	}
	return err
}

// closedCleanly reports whether err, from closing a session, says only
// that it ended: the connection was closed already, the server exited by
// the signal Close sends, or it had exited (and been reaped) by the time
// the signal was to be sent.
func closedCleanly(err error) bool {
	return err != nil && (errors.Is(err, mcp.ErrConnectionClosed) || endedByClose(err) || errors.Is(err, os.ErrProcessDone))
}

// endedByClose reports whether err is a stdio server's exit by SIGTERM or
// SIGKILL: how closing ends a server that does not exit when its input
// closes (after WithTerminateTimeout), not a failure. (A server that
// exits just as the timeout ends is reaped by the SDK's wait before its
// signal is sent: that Close fails with os.ErrProcessDone, which shut
// takes for the success it is.)
func endedByClose(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && (ws.Signal() == syscall.SIGTERM || ws.Signal() == syscall.SIGKILL)
}

// procGuard is a stdio server's transport while it is dialled: a dial
// given up ends the server's process group at once, whether the process
// has started by then or starts after (the SDK starts it in Connect, on
// another goroutine).
type procGuard struct {
	mcp.Transport
	cmd   *exec.Cmd
	pidfd *int // set by cmd's start

	mu        sync.Mutex
	started   bool // Connect has returned: cmd.Process is set if it started
	abandoned bool
}

func (g *procGuard) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := g.Transport.Connect(ctx)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.started = true
	if g.abandoned {
		killGroup(g.cmd, *g.pidfd)
	}
	return conn, err
}

// abandon ends the server now if it has started, or as soon as it does.
func (g *procGuard) abandon() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.abandoned = true
	if g.started {
		killGroup(g.cmd, *g.pidfd)
	}
}

// killGroup kills the process group that cmd's process leads (Setpgid),
// by its id. Once the server has been reaped, the id is free unless
// something of its group lives on: the kernel gives it to a new process
// when the ids wrap, and that process's group is not the server's. So a
// reaped server's group is killed only while no process has its id
// (known through pidfd, its pidfd; without one, as before, always).
func killGroup(cmd *exec.Cmd, pidfd int) {
	if cmd.Process == nil || cmd.Process.Pid <= 0 {
		return // -0 is our own group, -(-1) init (a released Process)
	}
	if idTaken(cmd.Process.Pid, pidfd) {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// route delivers one call's progress notifications to its context.
type route struct {
	mu     sync.Mutex
	ctx    context.Context
	tool   string
	callID string
	done   bool
}

func (c *Client) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p := req.Params
	if p == nil {
		return
	}
	tok := fmt.Sprint(p.ProgressToken)
	msg := clipText(p.Message) // the server's text, as an error's is
	// A token this client sent is short ("tb-N"); another is the server's
	// text, cut as its message is.
	pr := Progress{Token: cutText(tok, "progress token", maxToken), Progress: p.Progress, Total: p.Total, Message: msg}
	if v, ok := c.routes.Load(tok); ok {
		r := v.(*route)
		r.mu.Lock()
		pr.Tool, pr.CallID = r.tool, r.callID
		if !r.done {
			data, _ := json.Marshal(ProgressData{Progress: p.Progress, Total: p.Total, Message: msg})
			tool.EmitOutput(r.ctx, "progress", data)
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
	}
	if c.opts.late != nil {
		c.opts.late(pr)
	}
}

// finish marks a call's route done and keeps it for late notifications,
// forgetting the oldest beyond the bound.
func (c *Client) finish(tok string, r *route) {
	r.mu.Lock()
	r.done, r.ctx = true, nil
	r.mu.Unlock()
	c.recentMu.Lock()
	c.recent = append(c.recent, tok)
	if len(c.recent) > remembered {
		c.routes.Delete(c.recent[0])
		c.recent = append(c.recent[:0], c.recent[1:]...)
	}
	c.recentMu.Unlock()
}

// call runs one tools/call on the server.
func (c *Client) call(ctx context.Context, t *remoteTool, call tool.Call) (*tool.Result, error) {
	cn, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	args := call.Args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	tok := "tb-" + strconv.FormatUint(c.seq.Add(1), 10)
	r := &route{ctx: ctx, tool: t.spec.Name, callID: call.ID}
	c.routes.Store(tok, r)
	params := &mcp.CallToolParams{Name: t.remote, Arguments: args}
	params.SetProgressToken(tok)
	res, err := cn.cs.CallTool(ctx, params)
	c.finish(tok, r)
	if err != nil {
		if ctx.Err() != nil {
			// The SDK has sent notifications/cancelled; the executor turns
			// this into a cancelled or timed-out result.
			return nil, ctx.Err()
		}
		te, transport := callError(t, err)
		if transport {
			c.drop(cn)
		}
		return nil, te
	}
	return fromMCP(t, res)
}

// remoteTool is one tool of a server, as a tool.Tool.
type remoteTool struct {
	c      *Client
	spec   tool.Spec
	remote string
}

func (t *remoteTool) Spec() tool.Spec { return t.spec }

// Run calls the tool on the server. Progress notifications become output
// events on the "progress" stream; cancelling ctx cancels the remote call.
func (t *remoteTool) Run(ctx context.Context, call tool.Call) (*tool.Result, error) {
	return t.c.call(ctx, t, call)
}
