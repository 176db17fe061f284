package executor

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/toolbelt-go/toolbelt/tool"
)

// limits are an executor's concurrency limits: the options' sizes, and a
// FIFO semaphore for each scope with a limit and calls running or waiting
// (TryAcquire never overtakes a waiter).
type limits struct {
	global, agent, tool int
	tools               map[string]int
	policy              Overflow
	maxQueue            int

	mu   sync.Mutex
	live map[scope]*limiter
}

// scope is what a limiter limits: kind "" (the executor), "agent" or
// "tool", and a name. An agent is its tenant's: one tenant's "coder" must
// not take another's slots.
type scope struct{ kind, tenant, name string }

// String names the scope in messages; built only when a call must wait.
func (s scope) String() string {
	switch {
	case s.kind == "":
		return "the executor"
	case s.tenant != "":
		return fmt.Sprintf("%s %q of tenant %q", s.kind, s.name, s.tenant)
	}
	return fmt.Sprintf("%s %q", s.kind, s.name)
}

type limiter struct {
	scope
	sem     *semaphore.Weighted
	size    int
	waiting atomic.Int64
	refs    int // calls holding or waiting for it; limits.mu
}

// get returns the scope's limiter, counting the caller as a user until put.
func (l *limits) get(s scope, size int) *limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.live[s]
	if lim == nil {
		lim = &limiter{scope: s, sem: semaphore.NewWeighted(int64(size)), size: size}
		l.live[s] = lim
	}
	lim.refs++
	return lim
}

// put drops the caller's use of a limiter, and an agent's or a tool's with
// its last user, so memory follows the agents and tools with calls running
// or waiting, however many come and go.
func (l *limits) put(lim *limiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if lim.refs--; lim.refs == 0 && lim.kind != "" {
		delete(l.live, lim.scope)
	}
}

// slots are the limiters of a tool, an agent and the executor whose slot
// one backend run holds; nil where there is no limit.
type slots [3]*limiter

// release gives back the slots acquire took.
func (l *limits) release(held slots) {
	for _, lim := range held {
		if lim != nil {
			lim.sem.Release(1)
			l.put(lim)
		}
	}
}

// acquire takes the call's slots, narrowest first (tool, agent, global),
// so that a call blocked on its own agent's limit holds no global slot.
// Every call takes them in the same order, which rules out deadlock.
func (l *limits) acquire(ctx context.Context, cs *callState) (slots, *tool.Error) {
	call := &cs.call
	toolSize, ok := l.tools[call.Name]
	if !ok {
		toolSize = l.tool
	}
	var held slots
	sizes := [len(held)]int{toolSize, l.agent, l.global}
	for i, s := range [len(held)]scope{{"tool", "", call.Name}, {"agent", call.Tenant, call.Agent}, {}} {
		if sizes[i] <= 0 {
			continue
		}
		lim := l.get(s, sizes[i])
		if err := l.take(ctx, lim, cs); err != nil {
			l.put(lim)
			l.release(held)
			return slots{}, err
		}
		held[i] = lim
	}
	return held, nil
}

func (l *limits) take(ctx context.Context, lim *limiter, cs *callState) *tool.Error {
	if lim.sem.TryAcquire(1) {
		return nil
	}
	if l.policy == Refuse {
		return tool.Errorf(tool.CodeConcurrencyLimit, "%s already runs %d calls, its limit: retry when one finishes", lim.scope, lim.size)
	}
	waiting := lim.waiting.Add(1)
	defer lim.waiting.Add(-1)
	if l.maxQueue > 0 && waiting > int64(l.maxQueue) {
		return tool.Errorf(tool.CodeConcurrencyLimit, "%s runs %d calls and %d more are queued, the most allowed: retry later", lim.scope, lim.size, l.maxQueue)
	}
	reason := fmt.Sprintf("limit: %s runs %d calls, its limit; %d queued", lim.scope, lim.size, waiting)
	if cs.call.Tenant != "" && lim.tenant == "" { // shared by every tenant: how busy the others are is theirs
		reason = fmt.Sprintf("limit: %s runs %d calls, its limit; waiting", lim.scope, lim.size)
	}
	return cs.queue(ctx, reason, func(ctx context.Context) error { return lim.sem.Acquire(ctx, 1) },
		func(waited time.Duration, deadline string) *tool.Error {
			return tool.Errorf(tool.CodeConcurrencyLimit, "waited %v for one of the %d slots of %s and gave up at %s", waited, lim.size, lim.scope, deadline)
		})
}
