// Package ratelimit is the rate limit extension: token buckets
// (golang.org/x/time/rate) per tool, per principal and per tool+principal.
//
// Limits are written as strings: "100/hour", "100 per hour", "10/s",
// "5 per minute". A tool's own tool.Spec.RateLimitPerHour is honoured with
// no configuration (an explicit PerTool limit replaces it). A call must find
// a token in every bucket that applies to it.
//
// A limited call is refused at once with tool.CodeRateLimited, Retryable,
// and RetryAfter computed from the bucket (the reservation that measured it
// is cancelled, so a refused call costs no token). With Wait, the call waits
// for its token instead, unless the wait would pass the call's context
// deadline, in which case it is refused at once with the retry-after.
//
// Every result that went through a limit carries metadata under MetaKey: an
// Info for the bucket with the fewest tokens left.
//
// Memory stays bounded however many principals call: buckets live in a
// sharded map with a least-recently-used order; an insert first drops
// buckets idle for longer than their refill time (such a bucket is full, so
// forgetting it loses nothing), and a store at WithMaxBuckets drops its
// least recently used bucket. No goroutine is started.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"github.com/toolbelt-go/toolbelt/internal/clock"
	"time"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
	"golang.org/x/time/rate"
)

// Name is the extension's name.
const Name = "ratelimit"

// MetaKey is the result metadata key holding an Info.
const MetaKey = "rate_limit"

// DefaultMaxBuckets bounds each store (per principal, per tool+principal)
// when WithMaxBuckets is not given.
const DefaultMaxBuckets = 100_000

// Scopes of a bucket, as reported in Info.Scope.
const (
	ScopeTool          = "tool"
	ScopePrincipal     = "principal"
	ScopeToolPrincipal = "tool+principal"
)

// Info describes the tightest bucket a call went through.
type Info struct {
	Scope      string        `json:"scope"`
	Key        string        `json:"key"`
	Limit      string        `json:"limit"`
	Remaining  int           `json:"remaining"`
	RetryAfter time.Duration `json:"retry_after,omitempty"`
}

// Clock is the time source; tests inject one to run without sleeping.
type Clock = clock.Clock

// Option configures a Limiter.
type Option func(*Limiter)

func (l *Limiter) parse(what, s string) (Rate, bool) {
	r, err := ParseRate(s)
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("%s: %w", what, err))
		return Rate{}, false
	}
	return r, true
}

// PerTool limits the named tool (all callers together), replacing its
// Spec.RateLimitPerHour.
func PerTool(name, rate string) Option {
	return func(l *Limiter) {
		if r, ok := l.parse("PerTool("+name+")", rate); ok {
			l.toolRates[name] = r
		}
	}
}

// EachTool limits every tool that has no PerTool limit and no
// Spec.RateLimitPerHour (all callers together, each tool its own bucket).
func EachTool(rate string) Option {
	return func(l *Limiter) {
		if r, ok := l.parse("EachTool", rate); ok {
			l.toolDefault = &r
		}
	}
}

// PerPrincipal limits each principal across all tools. Calls without a
// principal ID share one bucket.
func PerPrincipal(rate string) Option {
	return func(l *Limiter) {
		if r, ok := l.parse("PerPrincipal", rate); ok {
			l.principal = &r
		}
	}
}

// PerToolPrincipal limits each principal on each tool.
func PerToolPrincipal(rate string) Option {
	return func(l *Limiter) {
		if r, ok := l.parse("PerToolPrincipal", rate); ok {
			l.toolPrincipal = &r
		}
	}
}

// IgnoreSpecLimits stops the limiter from applying Spec.RateLimitPerHour.
func IgnoreSpecLimits() Option { return func(l *Limiter) { l.ignoreSpec = true } }

// Wait makes a limited call wait for its token (bounded by the call's
// context deadline) instead of being refused.
func Wait() Option { return func(l *Limiter) { l.wait = true } }

// WithMaxBuckets bounds the number of buckets each store keeps (default
// DefaultMaxBuckets). Evicting a bucket that is not full forgets what it
// had used, so set the bound above the number of callers active within one
// refill period.
func WithMaxBuckets(n int) Option {
	return func(l *Limiter) {
		if n <= 0 {
			l.errs = append(l.errs, fmt.Errorf("WithMaxBuckets(%d): the bound must be positive", n))
			return
		}
		l.maxBuckets = n
	}
}

// WithClock replaces the wall clock.
func WithClock(c Clock) Option {
	return func(l *Limiter) {
		if c != nil {
			l.clock = c
		}
	}
}

// Limiter is the rate limit extension. It is safe for concurrent use.
type Limiter struct {
	toolRates     map[string]Rate
	toolDefault   *Rate
	principal     *Rate
	toolPrincipal *Rate
	ignoreSpec    bool
	wait          bool
	maxBuckets    int
	clock         Clock
	errs          []error
	err           error

	tools, principals, toolPrincipals *store
}

var _ extension.Extension = (*Limiter)(nil)

// New returns a rate limit extension. With no options it applies each
// tool's Spec.RateLimitPerHour and nothing else.
//
// A bad rate string (or a zero rate) is reported by Check, and until fixed
// the extension refuses every call with tool.CodeInternal (it fails closed).
func New(opts ...Option) *Limiter {
	l := &Limiter{toolRates: map[string]Rate{}, maxBuckets: DefaultMaxBuckets, clock: clock.Wall{}}
	for _, o := range opts {
		if o != nil {
			o(l)
		}
	}
	l.err = errors.Join(l.errs...)
	l.tools = newStore(l.maxBuckets)
	l.principals = newStore(l.maxBuckets)
	l.toolPrincipals = newStore(l.maxBuckets)
	l.toolPrincipals.joined = true
	return l
}

// Check reports configuration mistakes found by New.
func (l *Limiter) Check() error { return l.err }

// Name implements extension.Extension.
func (l *Limiter) Name() string { return Name }

// Priority implements extension.Extension: extension.PriorityRateLimit.
func (l *Limiter) Priority() int { return extension.PriorityRateLimit }

// Buckets returns how many buckets are held, in all stores.
func (l *Limiter) Buckets() int {
	return l.tools.len() + l.principals.len() + l.toolPrincipals.len()
}

// Sweep drops every idle (full) bucket now and returns how many it dropped.
// Inserts already sweep a few, so calling it is optional.
func (l *Limiter) Sweep() int {
	now := l.clock.Now()
	return l.tools.sweepAll(now) + l.principals.sweepAll(now) + l.toolPrincipals.sweepAll(now)
}

func (l *Limiter) toolRate(spec *tool.Spec) (Rate, bool) {
	if r, ok := l.toolRates[spec.Name]; ok {
		return r, true
	}
	if !l.ignoreSpec && spec.RateLimitPerHour > 0 {
		return PerHour(spec.RateLimitPerHour), true
	}
	if l.toolDefault != nil {
		return *l.toolDefault, true
	}
	return Rate{}, false
}

type taken struct {
	res   *rate.Reservation
	b     *bucket
	scope string
	delay time.Duration
}

// Wrap implements extension.Extension.
func (l *Limiter) Wrap(next extension.Handler) extension.Handler {
	_, wall := l.clock.(clock.Wall)
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		if l.err != nil {
			return tool.Fail(&req.Call, tool.CodeInternal, "ratelimit is misconfigured, refusing every call: "+l.err.Error())
		}
		// With the wall clock, the time the executor received the call
		// serves (one clock read fewer per call).
		now := req.Received
		if !wall || now.IsZero() {
			now = l.clock.Now()
		}
		var buf [3]taken
		ts := buf[:0]
		var keyBuf [128]byte
		name, pid := req.Spec.Name, req.Call.Principal.ID
		if r, ok := l.toolRate(req.Spec); ok {
			ts = append(ts, taken{nil, l.tools.bucket(append(keyBuf[:0], name...), r, now), ScopeTool, 0})
		}
		if l.principal != nil {
			ts = append(ts, taken{nil, l.principals.bucket(append(keyBuf[:0], pid...), *l.principal, now), ScopePrincipal, 0})
		}
		if l.toolPrincipal != nil {
			key := append(append(append(keyBuf[:0], name...), keySep...), pid...)
			ts = append(ts, taken{nil, l.toolPrincipals.bucket(key, *l.toolPrincipal, now), ScopeToolPrincipal, 0})
		}
		if len(ts) == 0 {
			return next(ctx, req)
		}
		// One bucket with a token to spare (the common case) needs no
		// reservation: take the token outright. Otherwise reserve in every
		// bucket, so that a refusal or a wait can give the tokens back.
		var worst *taken
		if len(ts) == 1 && ts[0].b.lim.AllowN(now, 1) {
			worst = &ts[0]
		} else {
			for i := range ts {
				t := &ts[i]
				t.res = t.b.lim.ReserveN(now, 1)
				t.delay = t.res.DelayFrom(now)
				if worst == nil || t.delay > worst.delay {
					worst = t
				}
			}
		}
		if worst.delay > 0 {
			deadline, hasDeadline := ctx.Deadline()
			if !l.wait || (hasDeadline && now.Add(worst.delay).After(deadline)) {
				cancelAll(ts, now)
				return l.refuse(req, worst, hasDeadline && l.wait)
			}
			if err := l.clock.Sleep(ctx, worst.delay); err != nil {
				cancelAll(ts, l.clock.Now())
				return tool.Failure(&req.Call, err)
			}
		}
		res := next(ctx, req)
		// Remaining as of the admission (the clock read above): what a
		// caller may still send now, without a second clock read.
		res.SetMeta(MetaKey, tightest(ts, now))
		return res
	}
}

func cancelAll(ts []taken, now time.Time) {
	for i := range ts {
		if ts[i].res != nil {
			ts[i].res.CancelAt(now)
		}
	}
}

func tightest(ts []taken, now time.Time) Info {
	best := -1
	var bestTok float64
	for i := range ts {
		tok := ts[i].b.lim.TokensAt(now)
		if best < 0 || tok < bestTok {
			best, bestTok = i, tok
		}
	}
	t := &ts[best]
	return Info{Scope: t.scope, Key: t.b.display, Limit: t.b.label, Remaining: max(0, int(bestTok))}
}

func (l *Limiter) refuse(req *extension.Request, t *taken, pastDeadline bool) *tool.Result {
	// Say whose budget ran out, once: a principal's limit spans every tool,
	// so the tool is named as the one being called, not as the limit's scope.
	var whose string
	switch t.scope {
	case ScopePrincipal:
		whose = fmt.Sprintf("for principal %q (calling tool %q)", req.Call.Principal.ID, req.Spec.Name)
	case ScopeToolPrincipal:
		whose = fmt.Sprintf("for principal %q on tool %q", req.Call.Principal.ID, req.Spec.Name)
	default:
		whose = fmt.Sprintf("on tool %q", req.Spec.Name)
	}
	wait := t.delay.Round(time.Millisecond)
	msg := fmt.Sprintf("rate limit %s %s reached: retry after %v", t.b.label, whose, wait)
	if pastDeadline {
		msg += " (waiting would pass the call's deadline)"
	}
	res := tool.Failure(&req.Call, tool.NewError(tool.CodeRateLimited, msg).WithRetryAfter(t.delay))
	res.SetMeta(MetaKey, Info{Scope: t.scope, Key: t.b.display, Limit: t.b.label, RetryAfter: t.delay})
	return res
}
