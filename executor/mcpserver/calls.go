package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolbelt-go/toolbelt/tool"
)

// DefaultMaxCallsInProgress is how many calls one principal may have in
// progress at once when WithMaxCallsInProgress does not say.
const DefaultMaxCallsInProgress = 64

// callsInProgress counts the calls each principal has in progress on a
// server, to bound them (WithMaxCallsInProgress). The SDK runs every
// request of a session on a goroutine of its own as it arrives and queues
// nothing, so without a bound one client holds as many calls as it sends.
type callsInProgress struct {
	max int // <= 0: no bound

	mu sync.Mutex
	n  map[user]int // only principals with a call in progress
}

// user is a principal as the bounds count it: its id and tenant (roles do
// not make another user; all anonymous callers are one).
type user struct{ id, tenant string }

func newCallsInProgress(max int) *callsInProgress {
	return &callsInProgress{max: max, n: map[user]int{}}
}

// acquire takes a place for one call of p, or reports false when p has
// max calls in progress.
func (c *callsInProgress) acquire(p tool.Principal) bool {
	if c.max <= 0 {
		return true
	}
	u := user{p.ID, p.Tenant}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[u] >= c.max {
		return false
	}
	c.n[u]++
	return true
}

// release gives back the place of one call of p that acquire took.
func (c *callsInProgress) release(p tool.Principal) {
	if c.max <= 0 {
		return
	}
	u := user{p.ID, p.Tenant}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Forget a principal with nothing in progress: names a client makes up
	// (a header nobody checks) must not grow the map.
	if c.n[u]--; c.n[u] <= 0 {
		delete(c.n, u)
	}
}

// overBound is the error a call over the bound is answered with.
func (c *callsInProgress) overBound() *tool.Error {
	return tool.Errorf(tool.CodeConcurrencyLimit, "%s", c.overBoundText())
}

func (c *callsInProgress) overBoundText() string {
	return fmt.Sprintf("this caller already has %d requests in progress on this server (tool calls, subscriptions/listen and others), the most one principal may have (mcpserver.WithMaxCallsInProgress): retry when one of them has finished", c.max)
}

// codeOverBound is the JSON-RPC error code of a request other than
// tools/call refused for being over the bound (the range JSON-RPC leaves to
// servers; a tools/call gets a concurrency_limit result instead).
const codeOverBound = -32000

// boundRequests is a receiving middleware that counts every request but
// tools/call, ping and initialize against the bound of its principal, the
// one a call on it would run as (requestPrincipal): counted as its
// context's alone, where a PrincipalFunc names the principals every
// user's requests were anonymous's, and one user's listens refused
// everyone's tools/list. The SDK parks a subscriptions/listen until the client
// cancels it, on a goroutine of its own, so without this one client holds
// as many as it sends; requests to resources and prompts run the host's
// handlers, which may be slow. tools/call is counted by the tool handler,
// as the principal WithPrincipal names; ping and initialize are answered
// at once, and a refused ping would make a keepalive close a busy session.
func (s *Server) boundRequests(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch {
		case method == "tools/call", method == "ping", method == "initialize", strings.HasPrefix(method, "notifications/"):
			return next(ctx, method, req)
		}
		p := s.requestPrincipal(ctx, req)
		if !s.calls.acquire(p) {
			return nil, &jsonrpc.Error{Code: codeOverBound, Message: s.calls.overBoundText()}
		}
		defer s.calls.release(p)
		return next(ctx, method, req)
	}
}
