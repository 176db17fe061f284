// Package retry is the retry extension: it runs a call again when its
// result's Error is Retryable, with exponential backoff and full jitter.
//
// Bounds, all of which hold together:
//
//   - at most MaxAttempts runs of the backend (default 3);
//   - within the rate limit: each retry takes the call's tokens again
//     from the rate limit extension outside (ratelimit.RunAgainKey), and
//     one it refuses is not run (the last failure is returned);
//   - never past the caller's context deadline: before each backoff the
//     extension checks that the next attempt would start before the
//     deadline, and otherwise returns the last result at once;
//   - a backoff is at least the error's RetryAfter (a rate limit or a 429
//     says how long to wait); a RetryAfter longer than the longest backoff
//     (Max, default 10s) is not waited for: the server chooses it, and a
//     caller without a deadline would be held as long as it says, so the
//     failure is returned at once with its RetryAfter;
//   - no retry while the last run is still going: a Go function that
//     ignored its deadline under executor.WithDetach (its result is marked
//     "backend_still_running") would overlap the next run, outside every
//     concurrency limit;
//   - only tools that are safe to repeat: tool.Spec.Annotations.Idempotent
//     or ReadOnly, a tool named with SafeTools, or a tool tagged "retry-safe"
//     (TagSafe). Anything else runs once, and a retryable failure says in
//     the result metadata why it was not retried.
//
// Backoff for the n-th retry is a uniformly random duration in
// [0, min(Max, Base·2^(n-1))) (the "full jitter" of the AWS architecture
// blog), raised to RetryAfter when that is longer.
//
// Each retry increments req.Attempt (the executor reports it as
// Result.Attempts) and emits a tool.EventRetried with the attempt about to
// run, the backoff as Latency, and the error as Reason; none once the
// caller's context has ended (no retry follows).
package retry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Name is the extension's name.
const Name = "retry"

// TagSafe is the spec tag that marks a tool as safe to retry even though it
// does not declare itself idempotent.
const TagSafe = "retry-safe"

// MetaKey is the result metadata key that says why retrying stopped, when
// it stopped before a success (e.g. "gave up after 3 attempts").
const MetaKey = "retry"

// Defaults used when no option overrides them.
const (
	DefaultMaxAttempts = 3
	DefaultBase        = 100 * time.Millisecond
	DefaultMax         = 10 * time.Second
)

// Option configures a Retry.
type Option func(*Retry)

// MaxAttempts sets how many times the backend may run in all (the first
// run included). Values below 1 are treated as 1 (no retries).
func MaxAttempts(n int) Option { return func(r *Retry) { r.max = max(1, n) } }

// Backoff sets the base and the cap of the exponential backoff. The cap is
// also the longest RetryAfter the extension waits for. Non-positive values
// keep the defaults.
func Backoff(base, maxBackoff time.Duration) Option {
	return func(r *Retry) {
		if base > 0 {
			r.base = base
		}
		if maxBackoff > 0 {
			r.cap = maxBackoff
		}
	}
}

// SafeTools names tools that may be retried although their specs do not
// declare them idempotent.
func SafeTools(names ...string) Option {
	return func(r *Retry) { r.safe = append(r.safe, names...) }
}

// WithRandom replaces the jitter source; fn returns a number in [0, 1).
func WithRandom(fn func() float64) Option {
	return func(r *Retry) {
		if fn != nil {
			r.random = fn
		}
	}
}

// Retry is the retry extension. It is safe for concurrent use.
type Retry struct {
	max       int
	base, cap time.Duration
	safe      []string
	random    func() float64
}

var _ extension.Extension = (*Retry)(nil)

// New returns a retry extension: 3 attempts, backoff from 100ms up to 10s,
// only for tools safe to repeat (see Safe).
func New(opts ...Option) *Retry {
	r := &Retry{max: DefaultMaxAttempts, base: DefaultBase, cap: DefaultMax, random: rand.Float64}
	for _, o := range opts {
		if o != nil {
			o(r)
		}
	}
	if r.cap < r.base {
		r.cap = r.base
	}
	return r
}

// Name implements extension.Extension.
func (r *Retry) Name() string { return Name }

// Priority implements extension.Extension: extension.PriorityRetry.
func (r *Retry) Priority() int { return extension.PriorityRetry }

// Safe reports whether the tool described by spec may be retried: it is
// Idempotent or ReadOnly, tagged TagSafe, or named with SafeTools.
func (r *Retry) Safe(spec *tool.Spec) bool {
	return spec.Annotations.Idempotent || spec.Annotations.ReadOnly || spec.HasTag(TagSafe) || slices.Contains(r.safe, spec.Name)
}

// backoff returns the full-jitter backoff before retry n (1-based).
func (r *Retry) backoff(n int) time.Duration {
	ceiling := r.cap
	if n-1 < 62 {
		// d>>(n-1) != base when the shift lost bits: an overflow, which
		// can wrap round to a small positive duration.
		if d := r.base << (n - 1); d>>(n-1) == r.base && d < ceiling {
			ceiling = d
		}
	}
	return time.Duration(r.random() * float64(ceiling))
}

func retryable(res *tool.Result) bool {
	return res != nil && res.Error != nil && res.Error.Retryable
}

// Wrap implements extension.Extension.
func (r *Retry) Wrap(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		if req.Attempt < 1 {
			req.Attempt = 1
		}
		first := req.Attempt
		res := next(ctx, req)
		if !retryable(res) {
			return res
		}
		if !r.Safe(req.Spec) {
			res.SetMeta(MetaKey, fmt.Sprintf("not retried: tool %q is not idempotent (mark it Idempotent or ReadOnly, tag it %q, or list it with retry.SafeTools)", req.Spec.Name, TagSafe))
			return res
		}
		for {
			if !retryable(res) {
				break
			}
			ran := req.Attempt - first + 1
			if ran >= r.max {
				res.SetMeta(MetaKey, fmt.Sprintf("gave up after %d attempts", ran))
				break
			}
			if still, _ := res.Metadata[tool.MetaStillRunning].(bool); still {
				// Idempotent means two runs do what one does, not that
				// they may overlap; and the run going on holds no lock
				// (its concurrency slots it keeps until it returns).
				res.SetMeta(MetaKey, fmt.Sprintf("stopped after %d attempts: the last run ignored its deadline and is still running", ran))
				break
			}
			wait := r.backoff(ran)
			ra := res.Error.RetryAfter
			if ra > wait {
				wait = ra
			}
			if dl, ok := ctx.Deadline(); ok && !time.Now().Add(wait).Before(dl) {
				res.SetMeta(MetaKey, fmt.Sprintf("stopped after %d attempts: the next would start after the call's deadline (backoff %v)", ran, wait))
				break
			}
			if ra > r.cap {
				// The server chooses RetryAfter: a caller without a
				// deadline would be held for as long as it says.
				res.SetMeta(MetaKey, fmt.Sprintf("stopped after %d attempts: the backend asks to wait %v, longer than the longest backoff (%v)", ran, ra, r.cap))
				break
			}
			if err := ctx.Err(); err != nil { // announce no retry that cannot run
				res.SetMeta(MetaKey, fmt.Sprintf("stopped after %d attempts: %v", ran, err))
				break
			}
			tool.Emit(ctx, tool.Event{Kind: tool.EventRetried, CallID: req.Call.ID, Tool: req.Spec.Name, Agent: req.Call.Agent,
				Attempt: req.Attempt + 1, Latency: wait, Reason: res.Error.Error()})
			if err := sleep(ctx, wait); err != nil {
				res.SetMeta(MetaKey, fmt.Sprintf("stopped after %d attempts: %v", ran, err))
				break
			}
			if refused := runAgain(ctx, req); refused != nil {
				// The limit counts runs: the failure before it is the
				// answer, and says why no run followed.
				res.SetMeta(MetaKey, fmt.Sprintf("stopped after %d attempts: the rate limit refuses another run (%s)", ran, refused.Error.Message))
				break
			}
			req.Attempt++
			res = next(ctx, req)
		}
		if res.Attempts < req.Attempt {
			res.Attempts = req.Attempt
		}
		return res
	}
}

// runAgain takes the tokens of another run from the rate limit outside,
// when there is one (ratelimit.RunAgainKey): nil to run, else the limit's
// refusal.
func runAgain(ctx context.Context, req *extension.Request) *tool.Result {
	v, ok := req.Get(ratelimit.RunAgainKey)
	if !ok {
		return nil
	}
	again, ok := v.(ratelimit.RunAgain)
	if !ok {
		return tool.Fail(&req.Call, tool.CodeInternal, fmt.Sprintf("an extension left a %T under %s, not a ratelimit.RunAgain", v, ratelimit.RunAgainKey))
	}
	res := again(ctx)
	if res != nil && res.Error == nil {
		res.Error = tool.NewError(tool.CodeInternal, "the rate limit refused another run without saying why")
	}
	return res
}

// sleep waits d, or until ctx is done. It returns ctx's error also when
// ctx ended as the wait did: the next attempt would start past the call's
// deadline, where the executor runs no backend, and the failure before it
// is the answer.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return ctx.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}
