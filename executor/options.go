package executor

import (
	"time"

	"github.com/toolbelt-go/toolbelt/extension"
)

// Defaults used when no option overrides them.
const (
	// DefaultTimeout bounds one run of a backend when neither the call nor
	// the spec sets a timeout.
	DefaultTimeout = 60 * time.Second
	// DefaultMaxArgBytes caps the size of a call's arguments.
	DefaultMaxArgBytes = 1 << 20
	// DefaultMaxOutputBytes caps what one result carries back (structured
	// output, and text blocks together; an error's message on its own).
	DefaultMaxOutputBytes = 1 << 20
	// DefaultBatchConcurrency is how many calls of one ExecuteBatch run at
	// once: a model turn rarely has more parallel calls, and tool calls
	// mostly wait on I/O.
	DefaultBatchConcurrency = 16
	// DefaultHistory is how many finished calls History keeps.
	DefaultHistory = 1000
	// DefaultJobRetention is how long a finished job stays queryable.
	DefaultJobRetention = 15 * time.Minute
	// DefaultJobsKept is how many finished jobs stay queryable at most.
	DefaultJobsKept = 1000
	// DefaultEventBuffer is a subscriber's channel capacity when its
	// EventFilter does not set Buffer.
	DefaultEventBuffer = 256
)

// Overflow says what a call does when it cannot run at once: another call
// holds a resource it declares, or a concurrency limit is reached.
type Overflow uint8

const (
	// Wait queues the call, first come first served, until its turn, its
	// context's deadline (or WithMaxWait), or cancellation. It is the default.
	Wait Overflow = iota
	// Refuse fails the call at once with tool.CodeConflict (locks) or
	// tool.CodeConcurrencyLimit (limits); both are retryable.
	Refuse
)

// String returns "wait" or "refuse".
func (o Overflow) String() string {
	if o == Refuse {
		return "refuse"
	}
	return "wait"
}

// setPositive sets *p to v when v is positive: most options keep their
// default when given zero or a negative value.
func setPositive[T int | time.Duration](p *T, v T) {
	if v > 0 {
		*p = v
	}
}

// Option configures an Executor.
type Option func(*Executor)

// WithExtensions adds extensions to the chain. They are ordered by
// priority (lower runs outside); use extension.WithPriority to re-place one.
func WithExtensions(exts ...extension.Extension) Option {
	return func(e *Executor) { e.exts = append(e.exts, exts...) }
}

// WithTimeout sets the deadline for one run of a backend when neither the
// call nor the tool's spec sets one. Zero or negative keeps DefaultTimeout.
func WithTimeout(d time.Duration) Option {
	return func(e *Executor) { setPositive(&e.timeout, d) }
}

// WithDetach runs each backend in its own goroutine, so that a deadline is
// honoured even by a Go function that ignores its context. At the deadline
// the call waits a second's grace, then returns timed out, marked
// "backend_still_running", while the function runs on; its result is
// discarded, and its slots and locks stay taken until it returns (for good
// if it never does). Without it (the default) a backend runs in the
// caller's goroutine, and a call ends only when its backend has stopped.
// Shell, HTTP and MCP backends honour their context either way; use
// WithDetach for Go functions you do not trust to.
func WithDetach() Option { return func(e *Executor) { e.detach = true } }

// WithMaxArgBytes caps the size of a call's arguments; larger arguments are
// refused before any decoding. Zero or negative keeps DefaultMaxArgBytes.
// Whatever the cap, arguments of more than registry.MaxArgValues JSON
// values are refused too, before they are decoded.
func WithMaxArgBytes(n int) Option {
	return func(e *Executor) { setPositive(&e.maxArgBytes, n) }
}

// WithMaxOutputBytes caps what one result carries back, for every backend
// alike (default DefaultMaxOutputBytes; zero or negative keeps it). Text
// blocks over the cap keep head and tail around a marker, within the cap
// (metadata "truncated" is true); structured output, which cannot be cut
// and stay JSON, fails the call with invalid_output. An error's message is
// cut to the cap on its own. Extensions (logs, the audit trail) see the
// capped result, and an extension's own answer (a cache hit) is capped too.
func WithMaxOutputBytes(n int) Option {
	return func(e *Executor) { setPositive(&e.maxOutBytes, n) }
}

// WithBatchConcurrency sets how many calls of one ExecuteBatch run at once.
// Zero or negative keeps DefaultBatchConcurrency. Concurrency limits
// (WithMaxConcurrency, ...) still apply on top of it.
func WithBatchConcurrency(n int) Option {
	return func(e *Executor) { setPositive(&e.batchLimit, n) }
}

// WithMaxConcurrency limits how many backends run at once across the whole
// executor (seed: max_concurrent_executions). Zero or negative means no
// limit, the default.
func WithMaxConcurrency(n int) Option {
	return func(e *Executor) { e.limits.global = max(n, 0) }
}

// WithAgentConcurrency limits how many backends run at once for each agent
// (tool.Call.Agent; seed: max_concurrent_tools per agent); calls that name
// none share the agent "". An agent is its principal's tenant's: one
// tenant's "coder" never waits for another's. Zero or negative: no limit.
func WithAgentConcurrency(n int) Option {
	return func(e *Executor) { e.limits.agent = max(n, 0) }
}

// WithToolConcurrency limits how many backends of each of the named tools
// run at once, or of every tool when no name is given. A later option for a
// name overrides an earlier one. Zero or negative lifts the limit.
func WithToolConcurrency(n int, tools ...string) Option {
	return func(e *Executor) {
		n = max(n, 0)
		if len(tools) == 0 {
			e.limits.tool = n
			return
		}
		for _, t := range tools {
			e.limits.tools[t] = n
		}
	}
}

// WithLimitPolicy says whether a call over a concurrency limit waits for a
// slot (Wait, the default) or fails at once with tool.CodeConcurrencyLimit.
func WithLimitPolicy(p Overflow) Option {
	return func(e *Executor) { e.limits.policy = p }
}

// WithMaxQueue bounds how many calls may wait for a slot of any one limit
// (the global one, one agent's, one tool's); a call beyond it fails at once
// with tool.CodeConcurrencyLimit (seed: max_queue_size). Zero or negative
// means no bound.
func WithMaxQueue(n int) Option {
	return func(e *Executor) { e.limits.maxQueue = max(n, 0) }
}

// WithMaxWait bounds how long a call waits in all for its locks and slots
// (retries included; not running, nor waiting for an approver), on top of
// its context's deadline; it then fails with tool.CodeConflict or
// tool.CodeConcurrencyLimit. Zero or negative: only the context bounds it.
func WithMaxWait(d time.Duration) Option {
	return func(e *Executor) { e.maxWait = max(d, 0) }
}

// WithConflictPolicy says whether a call whose resources are held by
// another call waits its turn (Wait, the default) or fails at once with
// tool.CodeConflict (Refuse).
func WithConflictPolicy(p Overflow) Option {
	return func(e *Executor) { e.conflict = p }
}

// WithHistory sets how many finished calls History keeps in memory
// (DefaultHistory; zero or negative: none). WithHistoryStore overrides it.
func WithHistory(n int) Option {
	return func(e *Executor) { e.histSize = max(n, 0) }
}

// WithJobRetention sets how long (ttl) and how many (keep) finished jobs
// of the in-memory store stay queryable by Status, Wait and Jobs; zero or
// negative keeps the defaults. Each holds its result, up to twice
// WithMaxOutputBytes (output and error message): 2 GiB at the defaults.
// Jobs not yet finished are kept whatever these bounds (Submit).
func WithJobRetention(ttl time.Duration, keep int) Option {
	return func(e *Executor) {
		setPositive(&e.jobs.ttl, ttl)
		setPositive(&e.jobs.max, keep)
	}
}

// WithJobStore keeps the executor's async jobs in s instead of memory: with
// a shared store (backend/postgres), any instance runs a job and every
// instance sees it. New attaches s (JobStore.Attach): give each executor a
// store of its own. A nil s keeps the in-memory store.
func WithJobStore(s JobStore) Option {
	return func(e *Executor) { e.jobStore = s }
}

// WithHistoryStore keeps the records History returns in s instead of a
// ring in memory: with a shared store (backend/postgres), History sees the
// calls of every instance. It turns history on whatever WithHistory says.
// A nil s keeps the in-memory ring.
func WithHistoryStore(s HistoryStore) Option {
	return func(e *Executor) { e.hist = s }
}
