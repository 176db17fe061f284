package executor_test

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// s14Writer is a tool that writes file:<path>. Its backend counts the runs
// inside it of call "a" and of the other calls, and records a run that
// found a run of the other side inside (two writers of one file at once).
// A run whose context carries a s14HoldKey channel reports on it that it
// is inside, then waits on it to be let go.
type s14Writer struct {
	inside   [2]atomic.Int32 // runs of call "a", of the other calls
	overlaps atomic.Int32
	declared atomic.Int32 // how many times the resources of call "a" were asked
	panicAt  int32        // declaring call "a" panics from this time on (0: never)
}

type s14HoldKey struct{}

func (w *s14Writer) tool() tool.Tool {
	return tool.New("w", "Write a file", func(ctx context.Context, c tool.Call) (*tool.Result, error) {
		mine, other := &w.inside[1], &w.inside[0]
		if c.ID == "a" {
			mine, other = &w.inside[0], &w.inside[1]
		}
		mine.Add(1)
		defer mine.Add(-1)
		if other.Load() > 0 {
			w.overlaps.Add(1)
		}
		if hold, ok := ctx.Value(s14HoldKey{}).(chan struct{}); ok {
			hold <- struct{}{} // inside
			<-hold             // let go
		}
		return &tool.Result{Content: []tool.Content{tool.TextContent("written")}}, nil
	}, tool.WithResources(func(args json.RawMessage) []tool.Resource {
		var a scPathArgs
		_ = json.Unmarshal(args, &a)
		if a.Line == "a" {
			if n := w.declared.Add(1); w.panicAt > 0 && n >= w.panicAt {
				panic("declaring again")
			}
		}
		return []tool.Resource{{Key: "file:" + a.Path, Access: tool.Write}}
	}))
}

// s14Aside is an approval-like extension: every run of call "a" waits in
// Queue.StepAside for aside (nil: returns at once).
func s14Aside(aside func()) extension.Extension {
	return extension.Func("aside", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			if req.Call.ID == "a" && req.Queue != nil {
				req.Queue.StepAside(func() {
					if aside != nil {
						aside()
					}
				})
			}
			return next(ctx, req)
		}
	})
}

// s14Go runs call id of w, its backend holding on hold when hold is not
// nil, and returns the channel of its result.
func s14Go(ex *executor.Executor, id string, hold chan struct{}) <-chan *tool.Result {
	out := make(chan *tool.Result, 1)
	ctx := context.Background()
	if hold != nil {
		ctx = context.WithValue(ctx, s14HoldKey{}, hold)
	}
	go func() {
		r, _ := ex.Execute(ctx, scCall(id, "w", scPathArgs{Path: "f", Line: id}))
		out <- r
	}()
	return out
}

// A call that stepped aside queues again for the resources its tool
// declares then. When that declaration panicked, the call went on with no
// ticket and ran its backend without the lock, while another writer held
// the file (StepAside's comment said relock would report the panic, but
// relock runs only for rewritten arguments). A panicking declaration fails
// the call, as it does at admission.
func TestReviewS14PanicWhenQueueingAgainDoesNotRunUnlocked(t *testing.T) {
	w := &s14Writer{panicAt: 2}
	hold := make(chan struct{})
	var ex *executor.Executor
	var b <-chan *tool.Result
	ex = executor.MustNew(scRegistry(t, w.tool()), executor.WithExtensions(s14Aside(func() {
		b = s14Go(ex, "b", hold) // b takes the file while a is aside
		<-hold
	})))

	res, _ := ex.Execute(context.Background(), scCall("a", "w", scPathArgs{Path: "f", Line: "a"}))
	hold <- struct{}{}
	require.Nil(t, (<-b).Error)
	assert.Zero(t, w.overlaps.Load(), "call a ran its backend while b held the file")
	require.NotNil(t, res.Error, "call a ran though its resources could not be declared")
	assert.Equal(t, tool.CodePanic, res.Error.Code, "%v", res.Error)
	assert.Zero(t, executor.LockedKeys(ex))
}

// s14Hedge runs the rest of the chain for call "a" twice, each run with its
// own copy of the request, as extension.Handler allows, at the default
// priority: outside the approval extension, so each run steps aside. The
// first run's context carries hold1; between runs between the two
// starts; run2 is told when the second run is back.
func s14Hedge(hold1 chan struct{}, between func(), run2 chan<- struct{}) extension.Extension {
	return extension.Func("hedge", extension.PriorityDefault, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			if req.Call.ID != "a" {
				return next(ctx, req)
			}
			first := make(chan *tool.Result, 1)
			r1, r2 := *req, *req
			ctx1 := ctx
			if hold1 != nil {
				ctx1 = context.WithValue(ctx, s14HoldKey{}, hold1)
			}
			go func() { first <- next(ctx1, &r1) }()
			between()
			res2 := next(ctx, &r2)
			run2 <- struct{}{}
			if res := <-first; res.Error != nil {
				return res
			}
			return res2
		}
	})
}

// One run of a hedged call stepped aside while another run of the same
// call was inside its backend: StepAside released the ticket that run
// held, and the next writer of the file ran alongside it.
func TestReviewS14StepAsideKeepsATicketAnotherRunHolds(t *testing.T) {
	w := &s14Writer{}
	hold1, holdB, run2 := make(chan struct{}), make(chan struct{}), make(chan struct{}, 1)
	var ex *executor.Executor
	var events <-chan tool.Event
	var b <-chan *tool.Result
	between := func() {
		<-hold1 // the first run is inside its backend, holding the file
		b = s14Go(ex, "b", holdB)
		for ev := range events { // b waits behind it
			if ev.CallID == "b" {
				return
			}
		}
	}
	ex = executor.MustNew(scRegistry(t, w.tool()), executor.WithExtensions(s14Hedge(hold1, between, run2), s14Aside(nil)))
	events, stop := ex.Subscribe(executor.EventFilter{Kinds: []tool.EventKind{tool.EventQueued}})
	defer stop()

	a := s14Go(ex, "a", nil)
	// Now the second run steps aside. Either it is back (its lock is the
	// first run's), or b got the file and the second run queued behind b.
	select {
	case <-run2:
	case <-holdB: // b is inside while the first run of a is
		holdB <- struct{}{}
		<-run2
	}
	hold1 <- struct{}{} // the first run of a lets go
	require.Nil(t, (<-a).Error)
	if w.overlaps.Load() == 0 {
		<-holdB // b is inside once a has returned
		holdB <- struct{}{}
	}
	require.Nil(t, (<-b).Error)
	assert.Zero(t, w.overlaps.Load(), "b wrote the file while a run of a held it")
	assert.Zero(t, executor.LockedKeys(ex))
}

// ExecuteBatch admits every call of the batch first, in index order, so
// that calls on one file run in index order and a call only ever waits for
// calls with a smaller index, which have started: the batch cannot
// deadlock. A call that stepped aside queued again behind every later call
// of the batch on its file: with one call at a time it waited for a call
// that could not start until it finished, until its deadline (for ever,
// without one); with more, the model's write ran after its later read.
func TestReviewS14BatchedCallKeepsItsPlaceInTheBatch(t *testing.T) {
	for _, limit := range []int{1, executor.DefaultBatchConcurrency} {
		w := &s14Writer{}
		var order []string
		var mu sync.Mutex
		record := extension.Func("record", extension.PriorityRetry, func(next extension.Handler) extension.Handler {
			return func(ctx context.Context, req *extension.Request) *tool.Result {
				res := next(ctx, req)
				mu.Lock()
				order = append(order, req.Call.ID)
				mu.Unlock()
				return res
			}
		})
		ex := executor.MustNew(scRegistry(t, w.tool()), executor.WithExtensions(s14Aside(nil), record),
			executor.WithBatchConcurrency(limit))
		// The bound is far above what the batch needs; it fails only a hang.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		results := ex.ExecuteBatch(ctx, []tool.Call{
			scCall("a", "w", scPathArgs{Path: "f", Line: "a"}),
			scCall("b", "w", scPathArgs{Path: "f", Line: "b"}),
		})
		cancel()
		for _, res := range results {
			assert.Nil(t, res.Error, "batch concurrency %d: %v", limit, res.Error)
		}
		assert.Equal(t, []string{"a", "b"}, order, "batch concurrency %d: the calls on f ran out of index order", limit)
		assert.Zero(t, executor.LockedKeys(ex))
	}
}

// Two runs of a hedged call: the first steps aside (a person takes long);
// b takes the file meanwhile; the second run is decided at once. It went on
// with no ticket at all (the first run had given it up) and ran its
// backend while b held the file.
func TestReviewS14RunAfterAnotherSteppedAsideTakesTheLock(t *testing.T) {
	w := &s14Writer{}
	slow, holdB, run2 := make(chan struct{}), make(chan struct{}), make(chan struct{}, 1)
	var ex *executor.Executor
	var events <-chan tool.Event
	var b <-chan *tool.Result
	asides := atomic.Int32{}
	aside := func() {
		if asides.Add(1) == 1 { // the first run: a person takes long
			slow <- struct{}{}
			<-slow
		}
	}
	between := func() {
		<-slow // the first run is aside
		b = s14Go(ex, "b", holdB)
		<-holdB // b holds the file
	}
	ex = executor.MustNew(scRegistry(t, w.tool()), executor.WithExtensions(s14Hedge(nil, between, run2), s14Aside(aside)))
	events, stop := ex.Subscribe(executor.EventFilter{Kinds: []tool.EventKind{tool.EventQueued}})
	defer stop()

	a := s14Go(ex, "a", nil)
	// The second run either ran (wrongly) or queues behind b.
	select {
	case <-run2:
	case ev := <-events:
		require.Equal(t, "a", ev.CallID)
	}
	holdB <- struct{}{} // b lets go
	require.Nil(t, (<-b).Error)
	slow <- struct{}{} // the first run is decided
	require.Nil(t, (<-a).Error)
	assert.Zero(t, w.overlaps.Load(), "a run of a wrote the file while b held it")
	assert.Zero(t, executor.LockedKeys(ex))
}
