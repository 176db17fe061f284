// Package ratelimit is the rate limit extension: token buckets per tool,
// per principal and per tool+principal, kept in a Store.
//
// Limits are written as strings: "100/hour", "100 per hour", "10/s",
// "5 per minute". A tool's own tool.Spec.RateLimitPerHour is honoured with
// no configuration (an explicit PerTool limit replaces it). A tool that runs
// another under a name of its own (a tool file's go tool over a function,
// which it exposes with Unwrap) is held to that tool's limits too: its
// bucket and its buckets per principal, kept under its name, so that a
// function named twice has one budget, not two. A call must find
// a token in every bucket that applies to it: the store takes them all in
// one step, or none, so a refused call costs no token. Each further run of
// the call's backend (a retry by the retry extension, which runs inside the
// limit) takes them again (RunAgainKey), and a run the limit refuses is not
// made: a tool limited to its upstream's quota is not run past it.
//
// A limited call is refused at once with tool.CodeRateLimited, Retryable,
// and RetryAfter from the store. With Wait, the call waits for its tokens
// instead, unless the wait would pass the call's context deadline, in which
// case it is refused at once with the retry-after.
//
// Every result that went through a limit carries metadata under MetaKey: an
// Info for the bucket with the fewest tokens left. A call its caller
// cancels before the backend ran (while it waited for a lock or a slot: a
// result with status cancelled and no attempt) gives its tokens back; a
// call refused inside the limiter does not: an approval denied, nor a call
// cancelled while a person was asked about it (approvalgate answers it
// approval_denied), so that neither a model nor a caller cancelling in a
// loop can ask a person more often than the limit allows. A call an
// authorizer further in refuses (auth, when the limiter is re-placed
// outside it) gives the tool's buckets, which every principal shares,
// their token back, and keeps the principal's: a principal cannot spend
// the budget of a tool it may not call. A limiter with PerTool or EachTool
// limits must run inside auth, as it does at its priority (CheckChain).
//
// The default store, MemoryStore, lives in this process: each instance of a
// fleet then has limits of its own. A shared store (the PostgreSQL one in
// backend/postgres, or your own Store) makes them exact across instances.
// When the store cannot answer, calls are refused with tool.CodeUnavailable:
// a limit fails closed.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Name is the extension's name.
const Name = "ratelimit"

// MetaKey is the result metadata key holding an Info.
const MetaKey = "rate_limit"

// DefaultMaxBuckets bounds a MemoryStore when NewMemoryStore or
// WithMaxBuckets gives no bound.
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

// PerPrincipal limits each principal across all tools. A principal is its
// tenant and id (one id in two tenants is two principals); calls without a
// principal ID share one bucket (per tenant).
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

// WithStore keeps the buckets in s instead of a MemoryStore of this
// process.
func WithStore(s Store) Option {
	return func(l *Limiter) {
		if s == nil {
			l.errs = append(l.errs, errors.New("WithStore(nil): give a store, or leave the option out for the in-memory one"))
			return
		}
		l.store = s
	}
}

// WithMaxBuckets bounds the default MemoryStore (default
// DefaultMaxBuckets); see NewMemoryStore.
func WithMaxBuckets(n int) Option {
	return func(l *Limiter) {
		if n <= 0 {
			l.errs = append(l.errs, fmt.Errorf("WithMaxBuckets(%d): the bound must be positive", n))
			return
		}
		l.maxBuckets = n
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
	store         Store
	errs          []error
	err           error
}

var _ extension.Extension = (*Limiter)(nil)

// New returns a rate limit extension. With no options it applies each
// tool's Spec.RateLimitPerHour and nothing else, in a MemoryStore.
//
// A bad rate string (or a zero rate) is reported by Check, and until fixed
// the extension refuses every call with tool.CodeInternal (it fails closed).
func New(opts ...Option) *Limiter {
	l := &Limiter{toolRates: map[string]Rate{}}
	for _, o := range opts {
		if o != nil {
			o(l)
		}
	}
	if l.store == nil {
		l.store = NewMemoryStore(l.maxBuckets)
	} else if l.maxBuckets != 0 {
		l.errs = append(l.errs, errors.New("WithMaxBuckets bounds the in-memory store: it has no effect with WithStore"))
	}
	l.err = errors.Join(l.errs...)
	return l
}

// Check reports configuration mistakes found by New.
func (l *Limiter) Check() error { return l.err }

// CheckRegistry reports PerTool limits for tools reg does not have, with
// the closest names: a typo would leave the real tool unlimited.
func (l *Limiter) CheckRegistry(reg extension.ToolLister) error {
	names := reg.Names()
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(l.toolRates)) {
		if slices.Contains(names, name) {
			continue
		}
		msg := fmt.Sprintf("ratelimit: PerTool(%q) limits a tool that is not registered", name)
		if s := reg.Suggest(name, 1); len(s) > 0 {
			msg += fmt.Sprintf(": did you mean %q?", s[0])
		} else {
			msg += ": register the tool before executor.New, or fix the name"
		}
		errs = append(errs, errors.New(msg))
	}
	return errors.Join(errs...)
}

// Name implements extension.Extension.
func (l *Limiter) Name() string { return Name }

// Priority implements extension.Extension: extension.PriorityRateLimit.
func (l *Limiter) Priority() int { return extension.PriorityRateLimit }

// Store returns the store the limiter keeps its buckets in.
func (l *Limiter) Store() Store { return l.store }

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

// part length-prefixes s, so that keys built from parts never collide
// whatever bytes the parts hold.
func part(s string) string { return strconv.Itoa(len(s)) + ":" + s }

// limit says what one of a call's buckets limits: its scope, and the tool
// it is for (the tool called, or one the called tool runs beneath).
type limit struct{ scope, tool string }

// runsAlso returns the specs of the tools t runs beneath under names other
// than name (tool.Unwrapped: a tool file's go tool over a Loader.Funcs
// function, a tool registered again under another name), each name once;
// nil for a tool that wraps none.
func runsAlso(t tool.Tool, name string) []tool.Spec {
	if t == nil {
		return nil
	}
	var out []tool.Spec
	for _, u := range tool.Unwrapped(t) {
		s := u.Spec()
		if s.Name != name && !slices.ContainsFunc(out, func(o tool.Spec) bool { return o.Name == s.Name }) {
			out = append(out, s)
		}
	}
	return out
}

// buckets returns the buckets that apply to a call of spec's tool t and
// what each limits. A principal is named with its tenant: ids are per
// tenant, and globex's alice is not acme's. The limits of a tool t runs
// beneath under another name (its spec's rate, a PerTool of its name, its
// buckets per principal) hold for t's calls too, as the policy's and the
// approval's rules by name do: a tool file's "tidy" over the function
// "charge" takes from charge's buckets as well as from its own, so that
// naming a function twice never gives it two budgets.
func (l *Limiter) buckets(spec *tool.Spec, t tool.Tool, p tool.Principal) ([]Bucket, []limit) {
	var bs []Bucket
	var of []limit
	who := part(p.ID)
	if p.Tenant != "" {
		// "t" first: no id's key (a length first) can read the same.
		who = "t" + part(p.Tenant) + who
	}
	also := runsAlso(t, spec.Name)
	toolBucket := func(s *tool.Spec) {
		if r, ok := l.toolRate(s); ok {
			bs = append(bs, Bucket{Key: "tool/" + part(s.Name), Rate: r, Shared: true})
			of = append(of, limit{ScopeTool, s.Name})
		}
	}
	toolBucket(spec)
	for i := range also {
		toolBucket(&also[i])
	}
	if l.principal != nil {
		bs = append(bs, Bucket{Key: "principal/" + who, Rate: *l.principal})
		of = append(of, limit{ScopePrincipal, spec.Name})
	}
	if l.toolPrincipal != nil {
		bs = append(bs, Bucket{Key: "tool+principal/" + part(spec.Name) + who, Rate: *l.toolPrincipal})
		of = append(of, limit{ScopeToolPrincipal, spec.Name})
		for _, s := range also {
			bs = append(bs, Bucket{Key: "tool+principal/" + part(s.Name) + who, Rate: *l.toolPrincipal})
			of = append(of, limit{ScopeToolPrincipal, s.Name})
		}
	}
	return bs, of
}

// info describes a call's bucket b, which limits lim, as Info shows it: its
// key names the tool, the principal (tenant/id) or both.
func info(req *extension.Request, b Bucket, lim limit) Info {
	p := req.Call.Principal
	who := p.ID
	if p.Tenant != "" {
		who = p.Tenant + "/" + p.ID
	}
	key := lim.tool
	switch lim.scope {
	case ScopePrincipal:
		key = who
	case ScopeToolPrincipal:
		key = lim.tool + "/" + who
	}
	return Info{Scope: lim.scope, Key: key, Limit: b.Rate.String()}
}

// Wrap implements extension.Extension.
func (l *Limiter) Wrap(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		if l.err != nil {
			// executor.New refuses this configuration; a chain built without
			// it fails closed. The model is told the tool cannot run, the
			// developer reads the configuration error in the cause.
			return tool.Failure(&req.Call, &tool.Error{Code: tool.CodeInternal,
				Message: fmt.Sprintf("tool %q cannot run: its rate limit is not set up correctly here; do not retry: tell the user", req.Call.Name),
				Err:     fmt.Errorf("ratelimit is misconfigured, refusing every call: %w", l.err)})
		}
		bs, of := l.buckets(req.Spec, req.Tool, req.Call.Principal)
		if len(bs) == 0 {
			return next(ctx, req)
		}
		for {
			g, err := l.store.Take(ctx, bs)
			if err != nil {
				if ctx.Err() != nil {
					return tool.Failure(&req.Call, ctx.Err())
				}
				// The store's address and error are the operator's, in the
				// cause; the model may retry later.
				return tool.Failure(&req.Call, &tool.Error{Code: tool.CodeUnavailable, Retryable: true,
					Message: fmt.Sprintf("tool %q cannot run right now: its rate limit cannot be checked; retry later", req.Call.Name),
					Err:     fmt.Errorf("the rate limit store cannot be reached, so the call is refused (limits fail closed): %w", err)})
			}
			if g.OK {
				req.Set(RunAgainKey, RunAgain(func(ctx context.Context) *tool.Result { return l.again(ctx, req, bs, of) }))
				res := next(ctx, req)
				switch {
				case res.Status == tool.StatusCancelled && res.Attempts == 0:
					// The caller gave up before the backend ran (waiting for
					// a lock, a slot or an approval): the call does not count.
					_ = l.store.Give(context.WithoutCancel(ctx), bs)
				case refusedByAuth(res):
					// Auth, further in, refused the principal the tool: the
					// tool's buckets, which every principal shares, get their
					// token back, or a principal could spend the budget of
					// a tool it may not call. Its own buckets keep theirs.
					if shared := sharedOnly(bs); len(shared) > 0 {
						_ = l.store.Give(context.WithoutCancel(ctx), shared)
					}
				}
				res.SetMeta(MetaKey, tightest(req, bs, of, g))
				return res
			}
			deadline, hasDeadline := ctx.Deadline()
			if !l.wait || (hasDeadline && time.Now().Add(g.RetryAfter).After(deadline)) {
				return l.refuse(req, bs, of, g, hasDeadline && l.wait)
			}
			t := time.NewTimer(g.RetryAfter)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return tool.Failure(&req.Call, ctx.Err())
			}
		}
	}
}

// refusedByAuth reports whether res is an authorizer's refusal of a call
// whose backend never ran: unauthorized, or carrying the deciding rule
// (extension.MetaAuthRule), with no attempt.
func refusedByAuth(res *tool.Result) bool {
	if res.Error == nil || res.Attempts != 0 {
		return false
	}
	_, ruled := res.Metadata[extension.MetaAuthRule]
	return ruled || res.Error.Code == tool.CodeUnauthorized
}

// sharedOnly returns the buckets of bs that every principal shares (a
// tool's).
func sharedOnly(bs []Bucket) []Bucket {
	var out []Bucket
	for _, b := range bs {
		if b.Shared {
			out = append(out, b)
		}
	}
	return out
}

// CheckChain implements extension.ChainChecker: a limiter with limits per
// tool (PerTool, EachTool), which every principal shares, must run inside
// the executor's authorizers (auth, at its priority). Outside, it takes a
// tool's tokens for calls auth then refuses, so a principal calling a tool
// hidden from it spends the budget of those who may call it; and with
// Wait, its calls wait for them. A limiter with limits per principal only
// may run outside auth (to turn a flood away first): a principal's
// refused calls spend only its own tokens. executor.New runs it.
func (l *Limiter) CheckChain(exts []extension.Extension) error {
	if len(l.toolRates) == 0 && l.toolDefault == nil {
		return nil
	}
	sorted := extension.Sort(exts)
	at := slices.IndexFunc(sorted, func(x extension.Extension) bool {
		y, ok := extension.As[*Limiter](x)
		return ok && y == l
	})
	if at < 0 {
		return nil
	}
	for _, x := range sorted[at+1:] {
		if _, ok := extension.As[extension.Authorizer](x); ok {
			return fmt.Errorf("ratelimit: the limiter runs outside auth (priority %d, extension %q's %d), and its limits per tool (PerTool, EachTool) are shared by every principal: a principal's calls of a tool auth refuses it would take the tokens of those who may call the tool; leave the limiter at its priority (%d, inside auth's %d), or keep only limits per principal (PerPrincipal, PerToolPrincipal) in a limiter placed outside auth",
				sorted[at].Priority(), x.Name(), x.Priority(), extension.PriorityRateLimit, extension.PriorityAuth)
		}
	}
	return nil
}

// RunAgainKey is the extension.Request value key under which the limiter
// leaves, for the extensions further in, a RunAgain for the call it let
// through. An extension that runs the backend more than once for one call
// (the retry extension, a hedge of your own) calls it before each run
// after the first, and does not make the run it refuses: the limit counts
// runs of the backend, not only calls, so that a tool limited to its
// upstream's quota is not run past it by retries.
const RunAgainKey = "ratelimit.run_again"

// RunAgain takes one more token from every bucket the call took from, for
// another run of its backend: nil when it did, else the refusal (rate
// limited, or unavailable when the store cannot answer), which the
// extension returns instead of running. It never waits.
type RunAgain func(ctx context.Context) *tool.Result

// again takes the call's tokens for another run of its backend.
func (l *Limiter) again(ctx context.Context, req *extension.Request, bs []Bucket, of []limit) *tool.Result {
	g, err := l.store.Take(ctx, bs)
	switch {
	case err != nil && ctx.Err() != nil:
		return tool.Failure(&req.Call, ctx.Err())
	case err != nil:
		return tool.Failure(&req.Call, &tool.Error{Code: tool.CodeUnavailable, Retryable: true,
			Message: fmt.Sprintf("tool %q cannot run again right now: its rate limit cannot be checked; retry later", req.Call.Name),
			Err:     fmt.Errorf("the rate limit store cannot be reached, so the run is refused (limits fail closed): %w", err)})
	case !g.OK:
		return l.refuse(req, bs, of, g, false)
	}
	return nil
}

// tightest is the Info of the bucket with the fewest tokens left.
func tightest(req *extension.Request, bs []Bucket, of []limit, g Grant) Info {
	best := 0
	for i := range g.Remaining {
		if g.Remaining[i] < g.Remaining[best] {
			best = i
		}
	}
	in := info(req, bs[best], of[best])
	in.Remaining = max(0, g.Remaining[best])
	return in
}

func (l *Limiter) refuse(req *extension.Request, bs []Bucket, of []limit, g Grant, pastDeadline bool) *tool.Result {
	i := g.Limiting
	// Say whose budget ran out, once: a principal's limit spans every tool,
	// so the tool is named as the one being called, not as the limit's scope.
	on := strconv.Quote(req.Spec.Name)
	if of[i].tool != req.Spec.Name {
		on = fmt.Sprintf("%q (the limit of %q, which it runs)", req.Spec.Name, of[i].tool)
	}
	var whose string
	switch of[i].scope {
	case ScopePrincipal:
		whose = fmt.Sprintf("for principal %q (calling tool %s)", req.Call.Principal.ID, on)
	case ScopeToolPrincipal:
		whose = fmt.Sprintf("for principal %q on tool %s", req.Call.Principal.ID, on)
	default:
		whose = "on tool " + on
	}
	in := info(req, bs[i], of[i])
	in.RetryAfter = g.RetryAfter
	msg := fmt.Sprintf("rate limit %s %s reached: retry after %v", in.Limit, whose, g.RetryAfter.Round(time.Millisecond))
	if pastDeadline {
		msg += " (waiting would pass the call's deadline)"
	}
	res := tool.Failure(&req.Call, tool.NewError(tool.CodeRateLimited, msg).WithRetryAfter(g.RetryAfter))
	res.SetMeta(MetaKey, in)
	return res
}
