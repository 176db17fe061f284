package mcpserver

import (
	"sync"

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
	return tool.Errorf(tool.CodeConcurrencyLimit,
		"this caller already has %d calls in progress on this server, the most one principal may have (mcpserver.WithMaxCallsInProgress): retry when one of them has finished", c.max)
}
