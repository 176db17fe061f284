package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// scHold starts a call on the gate tool for path and waits until it holds
// its lock (its backend runs).
func scHold(t *testing.T, ex *executor.Executor, probe *scProbe, id, path string) <-chan *tool.Result {
	t.Helper()
	before := probe.calls.Load()
	out := make(chan *tool.Result, 1)
	go func() {
		r, _ := ex.Execute(context.Background(), scCall(id, "gate", scPathArgs{Path: path}))
		out <- r
	}()
	probe.waitCalls(t, before+1)
	return out
}

func TestLockWaitGivesUpAtDeadlineWithConflict(t *testing.T) {
	probe, release := &scProbe{}, make(chan struct{})
	ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release, scPathResource(tool.Write))))
	held := scHold(t, ex, probe, "holder", "f")

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res, err := ex.Execute(ctx, scCall("late", "gate", scPathArgs{Path: "f"}))
	require.Error(t, err)
	assert.True(t, errors.Is(err, tool.ErrConflict), "got %v", err)
	assert.Contains(t, res.Error.Message, `"holder"`, "names the call it waited for")
	assert.True(t, res.Error.Retryable)
	assert.Equal(t, int64(1), probe.calls.Load(), "the late call never ran")

	// A different resource is not blocked.
	other := scHold(t, ex, probe, "other", "g")
	close(release)
	assert.True(t, (<-held).OK())
	assert.True(t, (<-other).OK())
	assert.Zero(t, executor.LockedKeys(ex))
}

func TestLockCancelledWhileWaiting(t *testing.T) {
	probe, release := &scProbe{}, make(chan struct{})
	ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release, scPathResource(tool.Write))))
	held := scHold(t, ex, probe, "holder", "f")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	res, _ := ex.Execute(ctx, scCall("late", "gate", scPathArgs{Path: "f"}))
	assert.Equal(t, tool.StatusCancelled, res.Status)
	close(release)
	<-held
	assert.Zero(t, executor.LockedKeys(ex))
}

func TestLockRefusePolicy(t *testing.T) {
	// In a synctest bubble time passes only while every goroutine waits:
	// a refusal "at once" takes no time at all, a wait for the lock would.
	synctest.Test(t, func(t *testing.T) {
		probe, release := &scProbe{}, make(chan struct{})
		ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release, scPathResource(tool.Write))),
			executor.WithConflictPolicy(executor.Refuse))
		held := scHold(t, ex, probe, "holder", "f")
		start := time.Now()
		res, err := ex.Execute(context.Background(), scCall("late", "gate", scPathArgs{Path: "f"}))
		assert.True(t, errors.Is(err, tool.ErrConflict))
		assert.Zero(t, time.Since(start), "refused at once")
		assert.Contains(t, res.Error.Message, `"holder"`)
		close(release)
		<-held
		res, err = ex.Execute(context.Background(), scCall("later", "gate", scPathArgs{Path: "f"}))
		require.NoError(t, err, "free again once the holder finished")
		assert.True(t, res.OK())
	})
}

func TestLockMaxWait(t *testing.T) {
	probe, release := &scProbe{}, make(chan struct{})
	ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release, scPathResource(tool.Write))),
		executor.WithMaxWait(30*time.Millisecond))
	held := scHold(t, ex, probe, "holder", "f")
	_, err := ex.Execute(context.Background(), scCall("late", "gate", scPathArgs{Path: "f"}))
	assert.True(t, errors.Is(err, tool.ErrConflict), "got %v", err)
	close(release)
	<-held
}

// TestLocksReleasedOnEveryEnding: a call that panics, times out, is
// cancelled, or is refused by an extension leaves its resource free.
func TestLocksReleasedOnEveryEnding(t *testing.T) {
	type in = scPathArgs
	tests := []struct {
		name string
		tool tool.Tool
		ctx  func() (context.Context, context.CancelFunc)
		want tool.Status
	}{
		{"panic", tool.Func("t", "The t test tool", func(context.Context, in) (string, error) { panic("boom") }, scPathResource(tool.Write)),
			nil, tool.StatusFailed},
		{"timeout", tool.Func("t", "The t test tool", func(ctx context.Context, _ in) (string, error) { <-ctx.Done(); return "", ctx.Err() },
			scPathResource(tool.Write), tool.WithTimeout(20*time.Millisecond)), nil, tool.StatusTimedOut},
		{"timeout ignoring ctx", tool.Func("t", "The t test tool", func(ctx context.Context, _ in) (string, error) { time.Sleep(80 * time.Millisecond); return "late", nil },
			scPathResource(tool.Write), tool.WithTimeout(20*time.Millisecond)), nil, tool.StatusTimedOut},
		{"cancel", tool.Func("t", "The t test tool", func(ctx context.Context, _ in) (string, error) { <-ctx.Done(); return "", ctx.Err() }, scPathResource(tool.Write)),
			func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(20*time.Millisecond, cancel)
				return ctx, cancel
			}, tool.StatusCancelled},
		{"resource declarer panics", tool.New("t", "The t test tool", func(context.Context, tool.Call) (*tool.Result, error) { return nil, nil },
			tool.WithResources(func(json.RawMessage) []tool.Resource { panic("bad declarer") })), nil, tool.StatusFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []executor.Option
			if tt.name == "timeout ignoring ctx" {
				opts = append(opts, executor.WithDetach()) // only a detached backend can be timed out without its help
			}
			ex := executor.MustNew(scRegistry(t, tt.tool), opts...)
			ctx, cancel := context.Background(), func() {}
			if tt.ctx != nil {
				ctx, cancel = tt.ctx()
			}
			defer cancel()
			res, _ := ex.Execute(ctx, scCall("c", "t", scPathArgs{Path: "f"}))
			assert.Equal(t, tt.want, res.Status, "%v", res.Err())
			assert.Zero(t, executor.LockedKeys(ex), "lock released")
		})
	}
	t.Run("extension denies", func(t *testing.T) {
		deny := extension.Hooks{ExtName: "deny", Before: func(_ context.Context, req *extension.Request) *tool.Result {
			return tool.Fail(&req.Call, tool.CodePolicyDenied, "no")
		}}
		probe := &scProbe{}
		ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, nil, scPathResource(tool.Write))), executor.WithExtensions(deny))
		res, _ := ex.Execute(context.Background(), scCall("c", "gate", scPathArgs{Path: "f"}))
		assert.Equal(t, tool.StatusDenied, res.Status)
		assert.Zero(t, executor.LockedKeys(ex))
	})
}

// TestLockFollowsRewrittenArguments: an extension (an approver's "modify")
// changes the path; the call then locks the new path, not the old one.
func TestLockFollowsRewrittenArguments(t *testing.T) {
	probe, release := &scProbe{}, make(chan struct{})
	redirect := extension.Hooks{ExtName: "redirect", Before: func(_ context.Context, req *extension.Request) *tool.Result {
		if req.Call.ID == "moved" {
			req.Call.Args = json.RawMessage(`{"path":"new"}`)
		}
		return nil
	}}
	ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release, scPathResource(tool.Write))),
		executor.WithExtensions(redirect))
	held := scHold(t, ex, probe, "holder", "new")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := ex.Execute(ctx, scCall("moved", "gate", scPathArgs{Path: "old"}))
	assert.True(t, errors.Is(err, tool.ErrConflict), "the rewritten call waited for the new path: %v", err)
	close(release)
	<-held
	assert.Zero(t, executor.LockedKeys(ex))
}

// TestRewrittenArgumentsKeepTheirLock: an extension rewrites the arguments
// into other bytes that declare the same resource. The call finds the key
// it holds and does not queue behind itself, with or without a state (a
// subscriber makes every call keep one).
func TestRewrittenArgumentsKeepTheirLock(t *testing.T) {
	for _, subscribed := range []bool{false, true} {
		t.Run(fmt.Sprintf("subscribed=%v", subscribed), func(t *testing.T) {
			respace := extension.Hooks{ExtName: "respace", Before: func(_ context.Context, req *extension.Request) *tool.Result {
				req.Call.Args = json.RawMessage(`{ "path" : "f" }`)
				return nil
			}}
			release := make(chan struct{})
			close(release)
			ex := executor.MustNew(scRegistry(t, scGateTool("gate", &scProbe{}, release, scPathResource(tool.Write))),
				executor.WithExtensions(respace))
			if subscribed {
				_, stop := ex.Subscribe(executor.EventFilter{})
				defer stop()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			res, err := ex.Execute(ctx, scCall("c", "gate", scPathArgs{Path: "f"}))
			require.NoError(t, err, "the call waited for its own lock")
			assert.True(t, res.OK())
			assert.Zero(t, executor.LockedKeys(ex))
		})
	}
}

// TestRewrittenArgumentsGiveUpTheOldKey: a call whose arguments an
// extension moved to another path gives the old path up before it runs,
// so that a call on the old path is not held up by it.
func TestRewrittenArgumentsGiveUpTheOldKey(t *testing.T) {
	probe, release := &scProbe{}, make(chan struct{})
	redirect := extension.Hooks{ExtName: "redirect", Before: func(_ context.Context, req *extension.Request) *tool.Result {
		if req.Call.ID == "moved" {
			req.Call.Args = json.RawMessage(`{"path":"new"}`)
		}
		return nil
	}}
	ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release, scPathResource(tool.Write))),
		executor.WithExtensions(redirect), executor.WithConflictPolicy(executor.Refuse))
	moved := scHold(t, ex, probe, "moved", "old") // runs on "new", at the gate
	res := make(chan error, 1)
	go func() {
		_, err := ex.Execute(context.Background(), scCall("other", "gate", scPathArgs{Path: "old"}))
		res <- err
	}()
	probe.waitCalls(t, 2) // a hang here: the call on the old path waits for the moved one
	assert.Equal(t, int32(2), probe.max.Load(), "the call on the old path runs beside the moved one")
	close(release)
	require.NoError(t, <-res)
	<-moved
	assert.Zero(t, executor.LockedKeys(ex))
}

// TestLockSeveralKeysNoDeadlock: calls that take the same keys listed in
// opposite orders all finish.
func TestLockSeveralKeysNoDeadlock(t *testing.T) {
	type in struct {
		Keys []string `json:"keys"`
	}
	probe := &scProbe{}
	multi := tool.Func("multi", "The multi test tool", func(ctx context.Context, a in) (string, error) {
		probe.enter()
		defer probe.leave()
		time.Sleep(50 * time.Microsecond)
		return "ok", nil
	}, tool.WithResources(func(args json.RawMessage) []tool.Resource {
		var a in
		_ = json.Unmarshal(args, &a)
		var rs []tool.Resource
		for _, k := range a.Keys {
			rs = append(rs, tool.Resource{Key: k, Access: tool.Write})
		}
		return rs
	}))
	ex := executor.MustNew(scRegistry(t, multi), executor.WithBatchConcurrency(64))
	var calls []tool.Call
	for i := 0; i < 200; i++ {
		k := 1 + i%3
		keys := []string{"a", "b", "c"}[:k]
		if i%2 == 1 {
			keys = []string{"c", "b", "a"}[3-k:] // the same keys, listed backwards
		}
		calls = append(calls, scCall("", "multi", in{Keys: keys}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, r := range ex.ExecuteBatch(ctx, calls) {
		require.True(t, r.OK(), "%v", r.Err())
	}
	assert.Equal(t, int32(1), probe.max.Load(), "every call shares key a with every other: they ran one at a time")
	assert.Zero(t, executor.LockedKeys(ex))
}

// An extension may run the rest of the chain more than once at a time for
// one call (a hedge). The runs share the call's lock ticket: both run under
// it, the first release wins, and the key is free afterwards. Under -race
// this fails if the call's lock flags are not safe for concurrent runs.
//
// Without a subscriber the calls hold their key through the lock table's
// fast path, with no state; with one they keep a state and a ticket.
func TestHedgingExtensionOnALockedCall(t *testing.T) {
	for _, subscribed := range []bool{false, true} {
		t.Run(fmt.Sprintf("subscribed=%v", subscribed), func(t *testing.T) {
			res := []tool.Resource{{Key: "file:/x", Access: tool.Write}}
			var runs atomic.Int32
			tl := tool.New("w", "The w test tool", func(context.Context, tool.Call) (*tool.Result, error) {
				runs.Add(1)
				return &tool.Result{}, nil
			}, tool.WithResources(func(json.RawMessage) []tool.Resource { return res }))
			ex := executor.MustNew(scRegistry(t, tl), executor.WithExtensions(scHedge()))
			if subscribed {
				_, stop := ex.Subscribe(executor.EventFilter{})
				defer stop()
			}
			for i := range 20 {
				_, err := ex.Execute(context.Background(), tool.Call{ID: fmt.Sprint(i), Name: "w"})
				require.NoError(t, err)
				assert.Zero(t, executor.LockedKeys(ex), "the key is free once the call returns")
			}
			assert.Equal(t, int32(40), runs.Load(), "both runs of each call ran")
		})
	}
}

// TestFinishedCallIsNotKeptAliveByItsLock: once a call that held a key
// returns, nothing in the lock table refers to it, so a large argument is
// garbage at once (the table remembers who holds a key, for the "behind
// call X" reports, only while it is held).
func TestFinishedCallIsNotKeptAliveByItsLock(t *testing.T) {
	ex := executor.MustNew(scRegistry(t, scAppendless()))
	freed := make(chan struct{})
	func() {
		args := []byte(`{"pad":"` + strings.Repeat("x", 512<<10) + `"}`)
		runtime.AddCleanup(&args[0], func(ch chan struct{}) { close(ch) }, freed)
		_, err := ex.Execute(context.Background(), tool.Call{ID: "big", Name: "touch", Args: args})
		require.NoError(t, err)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		select {
		case <-freed:
			assert.Zero(t, executor.LockedKeys(ex))
			return
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the finished call's arguments are still reachable")
		}
	}
}

// A tool may run other calls through the same executor from its backend
// (a sub-agent), with the context it was given. The inner call is not the
// outer one: when an extension rewrites the inner call's arguments, the
// inner call must not find the outer call's lock (or state) in the context
// and give it up. The outer call holds one key (the lock table's fast
// path, no state) or two (a state and a ticket); either way its key stays
// held until it ends.
//
// The inner call is run from the outer call's backend, or from an
// extension on the outer call's way to its backend (with the context the
// chain passes on, which carries the outer call's hold or state).
func TestNestedCallDoesNotTouchTheOuterCallsLock(t *testing.T) {
	for _, from := range []string{"backend", "extension"} {
		for _, keys := range [][]string{{"a"}, {"a", "b"}} {
			t.Run(from+"/"+strings.Join(keys, "+"), func(t *testing.T) {
				testNestedCall(t, from == "extension", keys)
			})
		}
	}
}

func testNestedCall(t *testing.T, fromExtension bool, keys []string) {
	var ex *executor.Executor
	probeErr := make(chan error, 1)
	// The inner call declares nothing until the extension rewrites
	// its arguments to name a path: it has no state of its own and
	// relocks from the rewritten arguments.
	nested := func(ctx context.Context) error {
		if _, err := ex.Execute(ctx, scCall("inner", "inner", scPathArgs{})); err != nil {
			return err
		}
		_, err := ex.Execute(context.Background(), scCall("probe", "inner", scPathArgs{Path: "a"}))
		probeErr <- err
		return nil
	}
	outer := tool.Func("outer", "The outer test tool", func(ctx context.Context, _ scPathArgs) (string, error) {
		if !fromExtension {
			if err := nested(ctx); err != nil {
				return "", err
			}
		}
		return "ok", nil
	}, tool.WithResources(func(json.RawMessage) []tool.Resource {
		var rs []tool.Resource
		for _, k := range keys {
			rs = append(rs, tool.Resource{Key: "file:" + k, Access: tool.Write})
		}
		return rs
	}))
	inner := tool.Func("inner", "The inner test tool", func(context.Context, scPathArgs) (string, error) { return "ok", nil },
		scPathResource(tool.Write))
	redirect := extension.Hooks{ExtName: "redirect", Before: func(ctx context.Context, req *extension.Request) *tool.Result {
		switch req.Call.ID {
		case "inner":
			req.Call.Args = json.RawMessage(`{"path":"elsewhere"}`)
		case "outer":
			if fromExtension {
				if err := nested(ctx); err != nil {
					return tool.Failure(&req.Call, err)
				}
			}
		}
		return nil
	}}
	ex = executor.MustNew(scRegistry(t, outer, inner), executor.WithExtensions(redirect),
		executor.WithConflictPolicy(executor.Refuse))
	_, err := ex.Execute(context.Background(), scCall("outer", "outer", scPathArgs{}))
	require.NoError(t, err)
	assert.ErrorIs(t, <-probeErr, tool.ErrConflict,
		"a call on the outer call's key while it runs is refused: the inner call left the outer's lock alone")
	assert.Zero(t, executor.LockedKeys(ex))
}

// An extension that runs the rest of the chain again (a retry) gets a
// fresh backend context for each run: the frame's room for one serves the
// first run only, and the second does not inherit its cancellation.
func TestEachRunGetsItsOwnBackendContext(t *testing.T) {
	var errs []error
	tl := tool.New("t", "The t test tool", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
		errs = append(errs, ctx.Err())
		return &tool.Result{}, nil
	})
	twice := extension.Func("twice", 0, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			next(ctx, req)
			return next(ctx, req)
		}
	})
	ex := executor.MustNew(scRegistry(t, tl), executor.WithExtensions(twice))
	_, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "t"})
	require.NoError(t, err)
	assert.Equal(t, []error{nil, nil}, errs, "the second run's context is not the first's, cancelled when it ended")
}
