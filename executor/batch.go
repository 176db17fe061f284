package executor

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// ExecuteBatch runs the parallel tool calls of one model turn and returns
// their results in call order: results[i] is the result of calls[i], never
// nil.
//
// Up to WithBatchConcurrency calls run at once (concurrency limits still
// apply). Calls are submitted in index order, so calls that declare the
// same resource run in index order (readers together, writers alone);
// calls on different resources run in parallel. A failing call never
// cancels its siblings; cancelling ctx cancels them all, and calls not yet
// started then come back cancelled without running.
func (e *Executor) ExecuteBatch(ctx context.Context, calls []tool.Call) []*tool.Result {
	if ctx == nil {
		ctx = context.Background()
	}
	results := make([]*tool.Result, len(calls))
	if len(calls) == 0 {
		return results
	}
	began := time.Now() // each call's start is derived from it (see now)
	// Submission, in call order: this fixes the order of the lock queues.
	// Only the tool and the state of each call are kept until it runs; its
	// frame is made when it runs, so that the frames of finished calls are
	// garbage at once instead of live (and scanned by every collection)
	// until the whole batch ends.
	batch := make([]admitted, len(calls))
	for i := range calls {
		a := &batch[i]
		a.entry, _ = e.reg.Lookup(calls[i].Name)
		a.cs = e.admit(&calls[i], a.entry, nil)
	}
	// A fixed set of workers (the caller's goroutine among them) pulls the
	// calls in index order from a shared counter: no goroutine, no fresh
	// stack and no channel hop per call. Index order keeps lock order: a
	// call only ever waits for locks of calls with a smaller index, which
	// a worker has already taken up, so the workers cannot deadlock.
	// A cancelled ctx makes the calls not yet started come back cancelled
	// at once, without running (execute checks ctx first).
	//
	// Workers claim a few consecutive calls at a time (a claim), so that
	// they do not fight over the counter and the results' cache lines on
	// every call; claims stay small enough (an eighth of a worker's share
	// at most) that no worker is left with a long tail while the others
	// idle, and are single calls for a model turn's handful of calls.
	// Claims are taken in index order, so the lock-order argument holds:
	// the smallest unfinished call waits for nobody unfinished.
	workers := min(e.batchLimit, len(batch))
	claim := max(1, min(maxClaim, len(batch)/(workers*8)))
	var next atomic.Int64
	work := func() {
		w := &batchWorker{Context: ctx}
		var frames []extension.Request // this worker's next frames, allocated a chunk at a time
		for {
			lo := int(next.Add(int64(claim)) - int64(claim))
			if lo >= len(batch) {
				return
			}
			hi := min(lo+claim, len(batch))
			for i := lo; i < hi; i++ {
				if len(frames) == 0 {
					frames = make([]extension.Request, min(frameChunk, len(batch)-i))
				}
				f := &frames[0]
				frames = frames[1:]
				f.Call = calls[i]
				results[i] = e.runAdmitted(w, f, &batch[i], began)
			}
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return results
}

// frameChunk is how many frames (a call's extension.Request, which holds
// the executor's copy of the call) a batch worker allocates at once.
const frameChunk = 32

// maxClaim is the most consecutive calls a batch worker takes at once.
const maxClaim = 16

// batchWorker is the context a batch worker runs its calls under: the
// batch's context (every method is its; the context package finds its
// cancellation through Value, so children need no goroutine), plus the
// worker's chunk of deadline contexts for its calls' backends (see
// backendDeadline).
type batchWorker struct {
	context.Context
	deadlines atomic.Pointer[deadlineChunk]
}

// String names the context for debugging.
func (w *batchWorker) String() string { return fmt.Sprintf("%v.WithBatchWorker", w.Context) }

// Value answers backendDeadline (the worker hands out deadline contexts)
// and delegates every other key.
func (w *batchWorker) Value(key any) any {
	if _, ok := key.(sourceKey); ok {
		return w
	}
	return w.Context.Value(key)
}

// admitted is one submitted call of a batch: its tool and its state.
type admitted struct {
	entry *registry.Entry
	cs    *callState
}

// runAdmitted runs one call of a batch in frame f (its request, holding
// the call); began is the batch's start, from which the call's own start
// is derived. A panic escaping the pipeline (the executor's own
// bookkeeping; extensions and backends are guarded) becomes that call's
// result and never stops the worker or its siblings.
func (e *Executor) runAdmitted(ctx context.Context, f *extension.Request, a *admitted, began time.Time) (res *tool.Result) {
	defer func() {
		if p := recover(); p != nil {
			if a.cs != nil {
				a.cs.release()
			}
			res = extension.PanicResult(&f.Call, fmt.Sprintf("executor running call %q", f.Call.ID), p, debug.Stack())
		}
	}()
	return e.run(ctx, f, a.entry, a.cs, now(began))
}
