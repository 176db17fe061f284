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

type limitConfig struct {
	global, agent, tool int
	tools               map[string]int
	policy              Overflow
	maxQueue            int
}

// limits are the concurrency limits of an executor. Each is a FIFO
// semaphore (golang.org/x/sync/semaphore): a call that waits is served
// before any that comes later, and TryAcquire never overtakes a waiter.
type limits struct {
	cfg    limitConfig
	global *limiter

	mu     sync.Mutex
	agents map[string]*limiter // per agent, while one of its calls runs or waits
	tools  map[string]*limiter // per tool; bounded by the registered tools
}

type limiter struct {
	sem     *semaphore.Weighted
	size    int
	kind    string // "the executor", "agent", "tool"
	name    string
	waiting atomic.Int64
	refs    int // agents only: calls holding or waiting for it; limits.mu
}

func newLimiter(n int, kind, name string) *limiter {
	return &limiter{sem: semaphore.NewWeighted(int64(n)), size: n, kind: kind, name: name}
}

// scope names the limit in messages; built only when a call must wait.
func (lim *limiter) scope() string {
	if lim.kind == "" {
		return "the executor"
	}
	return fmt.Sprintf("%s %q", lim.kind, lim.name)
}

func newLimits(cfg limitConfig) *limits {
	any := cfg.global > 0 || cfg.agent > 0 || cfg.tool > 0
	for _, n := range cfg.tools {
		any = any || n > 0
	}
	if !any {
		return nil
	}
	l := &limits{cfg: cfg, agents: map[string]*limiter{}, tools: map[string]*limiter{}}
	if cfg.global > 0 {
		l.global = newLimiter(cfg.global, "", "")
	}
	return l
}

// slots are the semaphore slots one backend run holds.
type slots struct {
	l                   *limits
	tool, agent, global *limiter
}

func (s slots) any() bool { return s.tool != nil || s.agent != nil || s.global != nil }

func (s slots) release() {
	if s.global != nil {
		s.global.sem.Release(1)
	}
	if s.agent != nil {
		s.agent.sem.Release(1)
		s.l.putAgent(s.agent)
	}
	if s.tool != nil {
		s.tool.sem.Release(1)
	}
}

func (l *limits) toolLimiter(name string) *limiter {
	n, ok := l.cfg.tools[name]
	if !ok {
		n = l.cfg.tool
	}
	if n <= 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.tools[name]
	if lim == nil {
		lim = newLimiter(n, "tool", name)
		l.tools[name] = lim
	}
	return lim
}

// getAgent returns the agent's limiter, counting the caller as a user so
// that the limiter is kept while it waits or runs.
func (l *limits) getAgent(agent string) *limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.agents[agent]
	if lim == nil {
		lim = newLimiter(l.cfg.agent, "agent", agent)
		l.agents[agent] = lim
	}
	lim.refs++
	return lim
}

// putAgent drops the caller's use of the agent's limiter, and the limiter
// with its last user: memory stays in proportion to the agents with calls
// running or waiting, however many come and go.
func (l *limits) putAgent(lim *limiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if lim.refs--; lim.refs == 0 {
		delete(l.agents, lim.name)
	}
}

// acquire takes the call's slots, narrowest first (tool, agent, global),
// so that a call blocked on its own agent's limit holds no global slot.
// Every call takes them in the same order, which rules out deadlock.
func (l *limits) acquire(ctx context.Context, maxWait time.Duration, call *tool.Call, cs *callState) (slots, *tool.Error) {
	s := slots{l: l}
	if lim := l.toolLimiter(call.Name); lim != nil {
		if err := l.take(ctx, maxWait, lim, cs); err != nil {
			return slots{}, err
		}
		s.tool = lim
	}
	if l.cfg.agent > 0 {
		lim := l.getAgent(call.Agent)
		if err := l.take(ctx, maxWait, lim, cs); err != nil {
			l.putAgent(lim)
			s.release()
			return slots{}, err
		}
		s.agent = lim
	}
	if l.global != nil {
		if err := l.take(ctx, maxWait, l.global, cs); err != nil {
			s.release()
			return slots{}, err
		}
		s.global = l.global
	}
	return s, nil
}

func (l *limits) take(ctx context.Context, maxWait time.Duration, lim *limiter, cs *callState) *tool.Error {
	if lim.sem.TryAcquire(1) {
		return nil
	}
	if l.cfg.policy == Refuse {
		return tool.Errorf(tool.CodeConcurrencyLimit, "%s already runs %d calls, its limit: retry when one finishes", lim.scope(), lim.size)
	}
	waiting := lim.waiting.Add(1)
	defer lim.waiting.Add(-1)
	if l.cfg.maxQueue > 0 && waiting > int64(l.cfg.maxQueue) {
		return tool.Errorf(tool.CodeConcurrencyLimit, "%s runs %d calls and %d more are queued, the most allowed: retry later", lim.scope(), lim.size, l.cfg.maxQueue)
	}
	if cs != nil {
		cs.queued(fmt.Sprintf("limit: %s runs %d calls, its limit; %d queued", lim.scope(), lim.size, waiting))
	}
	wctx, cancel := withMaxWait(ctx, maxWait)
	defer cancel()
	began := time.Now()
	if err := lim.sem.Acquire(wctx, 1); err != nil {
		if ctx.Err() == context.Canceled {
			return tool.AsError(ctx.Err())
		}
		return tool.Errorf(tool.CodeConcurrencyLimit, "waited %v for one of the %d slots of %s and gave up at the deadline: retry later", time.Since(began).Round(time.Millisecond), lim.size, lim.scope())
	}
	return nil
}
