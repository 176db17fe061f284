package ratelimit_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// store is the limiter's in-memory store.
func store(l *ratelimit.Limiter) *ratelimit.MemoryStore { return l.Store().(*ratelimit.MemoryStore) }

type fixture struct {
	reg  *registry.Registry
	runs atomic.Int64
}

func newFixture(t testing.TB) *fixture {
	f := &fixture{reg: registry.New()}
	run := func(context.Context, struct{}) (string, error) { f.runs.Add(1); return "ok", nil }
	f.reg.MustRegister(
		tool.Func("search", "Search", run, tool.WithRateLimit(2)),
		tool.Func("fetch", "Fetch", run),
		tool.Func("list", "List", run),
	)
	return f
}

// call is a call of the tool name by who: a principal id, or tenant/id.
func call(name, who string) tool.Call {
	p := tool.Principal{ID: who}
	if tenant, id, ok := strings.Cut(who, "/"); ok {
		p = tool.Principal{Tenant: tenant, ID: id}
	}
	return tool.Call{ID: "c", Name: name, Args: json.RawMessage(`{}`), Principal: p}
}

func TestParseRate(t *testing.T) {
	cases := []struct {
		in      string
		want    ratelimit.Rate
		wantErr string
	}{
		{"100/hour", ratelimit.Per(100, time.Hour), ""},
		{"100 per hour", ratelimit.Per(100, time.Hour), ""},
		{"10/s", ratelimit.Per(10, time.Second), ""},
		{"5 per minute", ratelimit.Per(5, time.Minute), ""},
		{" 7 / Day ", ratelimit.Per(7, 24*time.Hour), ""},
		{"3/90s", ratelimit.Per(3, 90*time.Second), ""},
		{"0/hour", ratelimit.Rate{}, "allows no calls"},
		{"ten/hour", ratelimit.Rate{}, "write it as <count>/<unit>"},
		{"10/fortnight", ratelimit.Rate{}, `unknown unit "fortnight"`},
		{"10/-5s", ratelimit.Rate{}, `unknown unit "-5s"`},
		{"", ratelimit.Rate{}, "write it as"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ratelimit.ParseRate(tc.in)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	assert.Equal(t, "100/hour", ratelimit.PerHour(100).String())
}

func TestSpecRateLimitPerHour(t *testing.T) { synctest.Test(t, testSpecRateLimitPerHour) }

func testSpecRateLimitPerHour(t *testing.T) {
	f := newFixture(t)
	ex := executor.MustNew(f.reg, executor.WithExtensions(ratelimit.New()))
	ctx := context.Background()
	for i := range 2 {
		res, err := ex.Execute(ctx, call("search", "bob"))
		require.NoError(t, err, "call %d", i)
		info := res.Metadata[ratelimit.MetaKey].(ratelimit.Info)
		assert.Equal(t, ratelimit.Info{Scope: "tool", Key: "search", Limit: "2/hour", Remaining: 1 - i}, info)
	}
	res, err := ex.Execute(ctx, call("search", "bob"))
	require.ErrorIs(t, err, tool.ErrRateLimited)
	assert.True(t, res.Error.Retryable)
	assert.Equal(t, 30*time.Minute, res.Error.RetryAfter, "one token per 30 minutes")
	assert.Equal(t, tool.StatusDenied, res.Status)
	assert.Contains(t, res.Error.Message, `rate limit 2/hour on tool "search" reached: retry after 30m0s`)
	assert.Equal(t, int64(2), f.runs.Load(), "the refused call did not run")

	// Tools without a limit are not limited.
	for range 10 {
		_, err := ex.Execute(ctx, call("fetch", "bob"))
		require.NoError(t, err)
	}
	time.Sleep(30 * time.Minute) // the bubble's clock passes the retry-after: the time under test, not a wait
	_, err = ex.Execute(ctx, call("search", "bob"))
	assert.NoError(t, err, "the token the retry-after promised is there")
}

func TestRefusalCostsNoToken(t *testing.T) { synctest.Test(t, testRefusalCostsNoToken) }

func testRefusalCostsNoToken(t *testing.T) {
	f := newFixture(t)
	ex := executor.MustNew(f.reg, executor.WithExtensions(ratelimit.New(ratelimit.PerTool("fetch", "1/minute"))))
	ctx := context.Background()
	_, err := ex.Execute(ctx, call("fetch", "a"))
	require.NoError(t, err)
	for range 3 {
		res, err := ex.Execute(ctx, call("fetch", "a"))
		require.ErrorIs(t, err, tool.ErrRateLimited)
		// Were the reservations kept, each refusal would push the next token later.
		assert.Equal(t, time.Minute, res.Error.RetryAfter)
	}
}

func TestScopes(t *testing.T) {
	type step struct {
		tool, who string
		ok        bool
		scope     string
	}
	cases := []struct {
		name  string
		opts  []ratelimit.Option
		steps []step
	}{
		{"per principal spans tools", []ratelimit.Option{ratelimit.PerPrincipal("2/hour")}, []step{
			{"fetch", "bob", true, ""}, {"list", "bob", true, ""}, {"fetch", "bob", false, "principal"},
			{"fetch", "alice", true, ""}, {"list", "", true, ""}, {"fetch", "", true, ""}, {"list", "", false, "principal"},
		}},
		{"per tool+principal", []ratelimit.Option{ratelimit.PerToolPrincipal("1/hour")}, []step{
			{"fetch", "bob", true, ""}, {"fetch", "bob", false, "tool+principal"}, {"list", "bob", true, ""},
			{"fetch", "alice", true, ""},
		}},
		// Principal ids are per tenant: globex's alice is not acme's.
		{"a principal is its tenant's", []ratelimit.Option{ratelimit.PerPrincipal("1/hour"), ratelimit.PerToolPrincipal("5/hour")}, []step{
			{"fetch", "acme/alice", true, ""}, {"fetch", "globex/alice", true, ""}, {"list", "alice", true, ""},
			{"fetch", "acme/alice", false, "principal"}, {"list", "globex/alice", false, "principal"},
		}},
		{"each tool", []ratelimit.Option{ratelimit.EachTool("1/hour")}, []step{
			{"fetch", "bob", true, ""}, {"fetch", "alice", false, "tool"}, {"list", "alice", true, ""},
			// search keeps its own Spec.RateLimitPerHour (2/hour)
			{"search", "a", true, ""}, {"search", "b", true, ""}, {"search", "c", false, "tool"},
		}},
		{"PerTool replaces the spec's limit", []ratelimit.Option{ratelimit.PerTool("search", "1/hour")}, []step{
			{"search", "a", true, ""}, {"search", "b", false, "tool"},
		}},
		{"spec limits can be ignored", []ratelimit.Option{ratelimit.IgnoreSpecLimits()}, []step{
			{"search", "a", true, ""}, {"search", "a", true, ""}, {"search", "a", true, ""},
		}},
		{"all buckets must allow", []ratelimit.Option{ratelimit.PerPrincipal("3/hour"), ratelimit.PerToolPrincipal("1/hour")}, []step{
			{"fetch", "bob", true, ""}, {"fetch", "bob", false, "tool+principal"}, {"list", "bob", true, ""},
			{"search", "bob", true, ""}, {"search", "bob", false, "tool+principal"}, {"list", "bob", false, "tool+principal"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			l := ratelimit.New(tc.opts...)
			require.NoError(t, l.Check())
			ex := executor.MustNew(f.reg, executor.WithExtensions(l))
			for i, s := range tc.steps {
				res, err := ex.Execute(context.Background(), call(s.tool, s.who))
				if s.ok {
					assert.NoError(t, err, "step %d %+v", i, s)
					continue
				}
				if assert.ErrorIs(t, err, tool.ErrRateLimited, "step %d %+v", i, s) {
					assert.Equal(t, s.scope, res.Metadata[ratelimit.MetaKey].(ratelimit.Info).Scope, "step %d", i)
				}
			}
		})
	}
}

func TestWait(t *testing.T) { synctest.Test(t, testWait) }

func testWait(t *testing.T) {
	f := newFixture(t)
	ex := executor.MustNew(f.reg, executor.WithExtensions(ratelimit.New(ratelimit.Wait(), ratelimit.PerPrincipal("1/minute"))))
	_, err := ex.Execute(context.Background(), call("fetch", "bob"))
	require.NoError(t, err)

	// Room before the deadline: the call waits for its token, then runs.
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(2*time.Minute))
	defer cancel()
	start := time.Now()
	_, err = ex.Execute(ctx, call("fetch", "bob"))
	require.NoError(t, err)
	assert.Equal(t, time.Minute, time.Since(start), "the call waited for its token")

	// The wait would pass the deadline: refused at once, nothing slept.
	ctx2, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(10*time.Second))
	defer cancel2()
	start = time.Now()
	res, err := ex.Execute(ctx2, call("fetch", "bob"))
	require.ErrorIs(t, err, tool.ErrRateLimited)
	assert.Equal(t, time.Minute, res.Error.RetryAfter)
	assert.Contains(t, res.Error.Message, "waiting would pass the call's deadline")
	assert.Zero(t, time.Since(start), "refused at once")
	assert.Equal(t, int64(2), f.runs.Load())
}

func TestWaitWallClockCancelled(t *testing.T) {
	f := newFixture(t)
	ex := executor.MustNew(f.reg, executor.WithExtensions(ratelimit.New(ratelimit.Wait(), ratelimit.PerPrincipal("1/hour"))))
	_, err := ex.Execute(context.Background(), call("fetch", "bob"))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	res, err := ex.Execute(ctx, call("fetch", "bob"))
	require.Error(t, err)
	assert.Equal(t, tool.CodeCancelled, res.Error.Code, "a cancelled wait ends the call")
	assert.Equal(t, int64(1), f.runs.Load())
}

func TestZeroRateRefused(t *testing.T) {
	for _, opt := range []ratelimit.Option{ratelimit.PerPrincipal("0/hour"), ratelimit.PerTool("fetch", "0 per s"), ratelimit.EachTool("x"), ratelimit.WithMaxBuckets(0),
		ratelimit.PerPrincipal("10/fortnight"), ratelimit.PerToolPrincipal("ten a minute")} {
		l := ratelimit.New(opt)
		require.Error(t, l.Check())
		f := newFixture(t)
		_, err := executor.New(f.reg, executor.WithExtensions(l))
		require.Error(t, err, "executor.New refuses it before any call")
		assert.Contains(t, err.Error(), l.Check().Error())
		// A chain built without New still fails closed.
		res := l.Wrap(func(context.Context, *extension.Request) *tool.Result {
			t.Fatal("the backend ran")
			return nil
		})(context.Background(), &extension.Request{Call: tool.Call{Name: "fetch"}, Spec: &tool.Spec{Name: "fetch"}, Attempt: 1})
		require.NotNil(t, res.Error)
		assert.Equal(t, tool.CodeInternal, res.Error.Code, "fails closed")
		// The model is told the tool cannot run; the configuration error
		// is the developer's, in the cause.
		assert.Equal(t, `tool "fetch" cannot run: its rate limit is not set up correctly here; do not retry: tell the user`, res.Error.Message)
		assert.ErrorContains(t, res.Error.Err, "ratelimit is misconfigured")
		assert.ErrorContains(t, res.Error.Err, l.Check().Error())
	}
	assert.Contains(t, ratelimit.New(ratelimit.PerPrincipal("0/hour")).Check().Error(), "PerPrincipal: ratelimit: rate 0/hour allows no calls")
}

// A PerTool limit for a tool that is not registered (a typo) would leave
// the real tool unlimited: executor.New refuses it, with the closest name.
func TestPerToolForUnknownToolRefusedByNew(t *testing.T) {
	f := newFixture(t)
	_, err := executor.New(f.reg, executor.WithExtensions(ratelimit.New(ratelimit.PerTool("fecth", "5/s"))))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `PerTool("fecth") limits a tool that is not registered: did you mean "fetch"?`)
}

func TestConcurrentCallsGetExactlyTheBurst(t *testing.T) {
	f := newFixture(t)
	ex := executor.MustNew(f.reg, executor.WithExtensions(ratelimit.New(ratelimit.PerPrincipal("10/hour"))))
	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := ex.Execute(context.Background(), call("fetch", "bob"))
			switch {
			case err == nil:
				ok.Add(1)
			case assert.ErrorIs(t, err, tool.ErrRateLimited):
				limited.Add(1)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(10), ok.Load())
	assert.Equal(t, int64(40), limited.Load())
}

func okNext(_ context.Context, req *extension.Request) *tool.Result {
	return &tool.Result{Status: tool.StatusSucceeded}
}

// A million distinct principals: the bucket count never exceeds the bound.
func TestMillionPrincipalsBounded(t *testing.T) {
	const bound = 10_000
	l := ratelimit.New(ratelimit.PerPrincipal("10/hour"), ratelimit.WithMaxBuckets(bound))
	h := l.Wrap(okNext)
	spec := &tool.Spec{Name: "fetch"}
	req := &extension.Request{Spec: spec}
	ctx := context.Background()
	peak := 0
	for i := range 1_000_000 {
		req.Call.Principal.ID = strconv.Itoa(i)
		if res := h(ctx, req); !res.OK() {
			t.Fatalf("principal %d was limited on its first call: %v", i, res.Error)
		}
		if i%10_000 == 0 {
			peak = max(peak, store(l).Len())
		}
	}
	peak = max(peak, store(l).Len())
	assert.LessOrEqual(t, peak, bound)
	assert.Greater(t, peak, bound/2, "the store is used, not emptied")
}

func TestIdleBucketsEvicted(t *testing.T) { synctest.Test(t, testIdleBucketsEvicted) }

func testIdleBucketsEvicted(t *testing.T) {
	l := ratelimit.New(ratelimit.PerPrincipal("10/minute"))
	h := l.Wrap(okNext)
	req := &extension.Request{Spec: &tool.Spec{Name: "fetch"}}
	for i := range 1000 {
		req.Call.Principal.ID = "old" + strconv.Itoa(i)
		h(context.Background(), req)
	}
	require.Equal(t, 1000, store(l).Len())

	// A bucket idle for its whole refill time (1 minute) is full: inserts
	// drop such buckets as they go.
	time.Sleep(61 * time.Second) // synctest: the bubble's clock passes the refill time
	for i := range 1000 {
		req.Call.Principal.ID = "new" + strconv.Itoa(i)
		h(context.Background(), req)
	}
	assert.Less(t, store(l).Len(), 1100, "idle buckets were evicted by inserts")

	time.Sleep(61 * time.Second) // synctest: the bubble's clock passes the refill time again
	store(l).Sweep()
	assert.Zero(t, store(l).Len())
}

func TestRecentlyUsedBucketsSurvive(t *testing.T) { synctest.Test(t, testRecentlyUsedBucketsSurvive) }

func testRecentlyUsedBucketsSurvive(t *testing.T) {
	l := ratelimit.New(ratelimit.PerPrincipal("1/hour"), ratelimit.WithMaxBuckets(64*10))
	h := l.Wrap(okNext)
	req := &extension.Request{Spec: &tool.Spec{Name: "fetch"}}
	req.Call.Principal.ID = "hot"
	require.True(t, h(context.Background(), req).OK())
	for i := range 5000 {
		req.Call.Principal.ID = "hot"
		if i%5 == 0 {
			res := h(context.Background(), req)
			require.False(t, res.OK(), "hot principal stays limited: its bucket is not evicted while in use")
		}
		req.Call.Principal.ID = "cold" + strconv.Itoa(i)
		h(context.Background(), req)
	}
}

func TestPriority(t *testing.T) {
	l := ratelimit.New()
	assert.Equal(t, extension.PriorityRateLimit, l.Priority())
	assert.Equal(t, ratelimit.Name, l.Name())
}

func TestInfoNamesTheTightestBucket(t *testing.T) { synctest.Test(t, testInfoNamesTheTightestBucket) }

func testInfoNamesTheTightestBucket(t *testing.T) {
	f := newFixture(t)
	ex := executor.MustNew(f.reg, executor.WithExtensions(ratelimit.New(
		ratelimit.PerPrincipal("10/minute"), ratelimit.PerToolPrincipal("3/minute"))))
	ctx := context.Background()
	for i := range 3 {
		res, err := ex.Execute(ctx, call("fetch", "a\x00b"))
		require.NoError(t, err, "call %d", i)
		assert.Equal(t, ratelimit.Info{Scope: ratelimit.ScopeToolPrincipal, Key: "fetch/a\x00b", Limit: "3/minute", Remaining: 2 - i},
			res.Metadata[ratelimit.MetaKey], "the key shows tool/principal; a NUL in the principal stays")
	}
	res, err := ex.Execute(ctx, call("fetch", "a\x00b"))
	require.ErrorIs(t, err, tool.ErrRateLimited)
	assert.Contains(t, res.Error.Message, `rate limit 3/minute for principal "a\x00b" on tool "fetch" reached: retry after`)
	// Another tool: a fresh tool+principal bucket (2 of 3 left after the
	// call) is still tighter than the principal's (6 of 10).
	res, err = ex.Execute(ctx, call("list", "a\x00b"))
	require.NoError(t, err)
	assert.Equal(t, ratelimit.Info{Scope: ratelimit.ScopeToolPrincipal, Key: "list/a\x00b", Limit: "3/minute", Remaining: 2}, res.Metadata[ratelimit.MetaKey])
	res, err = ex.Execute(ctx, call("list", "p"))
	require.NoError(t, err)
	assert.Equal(t, "list/p", res.Metadata[ratelimit.MetaKey].(ratelimit.Info).Key)
}

func TestPrincipalLimitMessageNamesThePrincipalOnce(t *testing.T) {
	synctest.Test(t, testPrincipalLimitMessageNamesThePrincipalOnce)
}

func testPrincipalLimitMessageNamesThePrincipalOnce(t *testing.T) {
	f := newFixture(t)
	ex := executor.MustNew(f.reg, executor.WithExtensions(ratelimit.New(ratelimit.PerPrincipal("1/minute"))))
	ctx := context.Background()
	_, err := ex.Execute(ctx, call("fetch", "bob"))
	require.NoError(t, err)
	res, err := ex.Execute(ctx, call("list", "bob"))
	require.ErrorIs(t, err, tool.ErrRateLimited)
	assert.Equal(t, `rate limit 1/minute for principal "bob" (calling tool "list") reached: retry after 1m0s`, res.Error.Message)
}

// brokenStore is a store whose database is down.
type brokenStore struct{}

func (brokenStore) Take(context.Context, []ratelimit.Bucket) (ratelimit.Grant, error) {
	return ratelimit.Grant{}, errors.New("dial tcp 127.0.0.1:5432: connection refused")
}
func (brokenStore) Give(context.Context, []ratelimit.Bucket) error { return nil }

// A limit whose store cannot answer refuses the call: it fails closed.
func TestUnreachableStoreFailsClosed(t *testing.T) {
	f := newFixture(t)
	ex := executor.MustNew(f.reg, executor.WithExtensions(ratelimit.New(ratelimit.WithStore(brokenStore{}), ratelimit.PerPrincipal("10/hour"))))
	res, err := ex.Execute(context.Background(), call("fetch", "bob"))
	require.ErrorIs(t, err, tool.ErrUnavailable)
	assert.True(t, res.Error.Retryable)
	assert.Equal(t, `tool "fetch" cannot run right now: its rate limit cannot be checked; retry later`, res.Error.Message)
	assert.NotContains(t, res.Error.Message, "127.0.0.1", "the store's address is not the model's business")
	assert.ErrorContains(t, res.Error.Err, "the rate limit store cannot be reached, so the call is refused (limits fail closed): dial tcp 127.0.0.1:5432: connection refused")
	assert.Zero(t, f.runs.Load())
	assert.Error(t, ratelimit.New(ratelimit.WithStore(nil)).Check())
}

// Take is all or none: when one bucket is empty, the others keep their
// tokens; Give puts tokens back, never above the burst.
func TestMemoryStoreTakesAllOrNone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := ratelimit.NewMemoryStore(0)
		ctx := context.Background()
		a := ratelimit.Bucket{Key: "a", Rate: ratelimit.Per(2, time.Hour)}
		b := ratelimit.Bucket{Key: "b", Rate: ratelimit.Per(1, time.Hour)}
		g, err := s.Take(ctx, []ratelimit.Bucket{a, b})
		require.NoError(t, err)
		assert.Equal(t, ratelimit.Grant{OK: true, Remaining: []int{1, 0}}, g)
		g, err = s.Take(ctx, []ratelimit.Bucket{a, b})
		require.NoError(t, err)
		assert.False(t, g.OK)
		assert.Equal(t, 1, g.Limiting, "b is the empty one")
		assert.Equal(t, time.Hour, g.RetryAfter)
		assert.Equal(t, []int{1, 0}, g.Remaining, "a kept its token")
		g, err = s.Take(ctx, []ratelimit.Bucket{a})
		require.NoError(t, err)
		assert.True(t, g.OK, "a's token was not spent by the refused take")

		require.NoError(t, s.Give(ctx, []ratelimit.Bucket{a, b}))
		require.NoError(t, s.Give(ctx, []ratelimit.Bucket{a, b}))
		g, err = s.Take(ctx, []ratelimit.Bucket{a, b})
		require.NoError(t, err)
		assert.Equal(t, []int{1, 0}, g.Remaining, "given back up to the burst, no further")
	})
}

// A call its caller cancels before the backend runs (here, while waiting
// for a person's approval) does not count against the limit.
func TestCancelledBeforeTheBackendGivesTheTokenBack(t *testing.T) {
	f := newFixture(t)
	waiting := make(chan struct{})
	stall := extension.Func("stall", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			close(waiting)
			<-ctx.Done()
			return tool.Failure(&req.Call, ctx.Err())
		}
	})
	ex := executor.MustNew(f.reg, executor.WithExtensions(ratelimit.New(ratelimit.PerPrincipal("1/hour")), stall))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *tool.Result, 1)
	go func() { res, _ := ex.Execute(ctx, call("fetch", "bob")); done <- res }()
	<-waiting
	cancel()
	res := <-done
	require.Equal(t, tool.StatusCancelled, res.Status)

	ex2 := executor.MustNew(f.reg, executor.WithExtensions(ratelimit.New(ratelimit.WithStore(ex.Extensions()[0].(*ratelimit.Limiter).Store()), ratelimit.PerPrincipal("1/hour"))))
	_, err := ex2.Execute(context.Background(), call("fetch", "bob"))
	assert.NoError(t, err, "the cancelled call's token was given back")
}

// TestInfoNamesThePrincipal: the Info of a result names the tightest
// bucket's principal with its tenant, both when the call runs and when it
// is refused.
func TestInfoNamesThePrincipal(t *testing.T) {
	f := newFixture(t)
	l := ratelimit.New(ratelimit.PerPrincipal("5/hour"), ratelimit.PerToolPrincipal("1/minute"))
	require.NoError(t, l.Check())
	ex := executor.MustNew(f.reg, executor.WithExtensions(l))
	res, err := ex.Execute(context.Background(), call("fetch", "acme/alice"))
	require.NoError(t, err)
	assert.Equal(t, ratelimit.Info{Scope: ratelimit.ScopeToolPrincipal, Key: "fetch/acme/alice", Limit: "1/minute", Remaining: 0}, res.Metadata[ratelimit.MetaKey])
	res, err = ex.Execute(context.Background(), call("fetch", "acme/alice"))
	require.ErrorIs(t, err, tool.ErrRateLimited)
	assert.Equal(t, ratelimit.Info{Scope: ratelimit.ScopeToolPrincipal, Key: "fetch/acme/alice", Limit: "1/minute", RetryAfter: res.Error.RetryAfter}, res.Metadata[ratelimit.MetaKey])
	assert.Contains(t, res.Error.Message, `rate limit 1/minute for principal "alice" on tool "fetch" reached`)

	ex = executor.MustNew(f.reg, executor.WithExtensions(ratelimit.New(ratelimit.PerPrincipal("1/hour"))))
	res, err = ex.Execute(context.Background(), call("fetch", "globex/bob"))
	require.NoError(t, err)
	assert.Equal(t, ratelimit.Info{Scope: ratelimit.ScopePrincipal, Key: "globex/bob", Limit: "1/hour"}, res.Metadata[ratelimit.MetaKey])
	res, err = ex.Execute(context.Background(), call("list", "globex/bob"))
	require.ErrorIs(t, err, tool.ErrRateLimited)
	assert.Equal(t, "globex/bob", res.Metadata[ratelimit.MetaKey].(ratelimit.Info).Key)
	assert.Contains(t, res.Error.Message, `rate limit 1/hour for principal "bob" (calling tool "list") reached`)
}

// TestRateString: a rate reads as its events per unit, with a burst that
// differs from the events.
func TestRateString(t *testing.T) {
	assert.Equal(t, "100/hour", ratelimit.Per(100, time.Hour).String())
	assert.Equal(t, "10/s (burst 3)", ratelimit.Rate{Events: 10, Per: time.Second, Burst: 3}.String())
	assert.Equal(t, "5/day", ratelimit.Rate{Events: 5, Per: 24 * time.Hour, Burst: 5}.String())
	assert.Equal(t, "7/1m30s", ratelimit.Per(7, 90*time.Second).String())
}

// A rate whose token takes longer than a Duration holds (one call in
// about 292 years): the wait for it saturated to a negative Duration, so a
// drained bucket granted another call, and Refill said it was full.
func TestLongRateDoesNotOverflow(t *testing.T) {
	r := ratelimit.Rate{Events: 1, Per: math.MaxInt64}
	now := time.Now()
	b := []ratelimit.Bucket{{Key: "k", Rate: r}}
	g, states := ratelimit.TakeAll(b, []ratelimit.State{r.Fresh(now)})
	require.True(t, g.OK)
	g, _ = ratelimit.TakeAll(b, states)
	assert.False(t, g.OK, "a drained bucket grants no call")
	assert.Positive(t, g.RetryAfter)
	assert.Positive(t, r.Refill(states[0]))
}
