package metrics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// counting is a Recorder that keeps its own in-flight gauge, as the
// Prometheus and OpenTelemetry adapters do.
type counting struct {
	inFlight, finished atomic.Int64
}

func (c *counting) Start(string) { c.inFlight.Add(1) }

func (c *counting) Finish(metrics.Observation) {
	c.inFlight.Add(-1)
	c.finished.Add(1)
}

// A backend that ends its goroutine with runtime.Goexit (t.FailNow in a
// tool under test, a library that calls it) runs in the caller's
// goroutine (the default, no WithDetach): it unwinds through the chain
// without a result. The executor still ends the call (its history, its
// job's waiters, an internal error), but the metrics extension finished
// its measurement only after next returned: the call stayed in flight
// for good, in the in-memory recorder and in every other (a Prometheus
// in-flight gauge at 1 forever, an alert on stuck calls), and was never
// counted.
func TestAttackS30ReviewGoexitFurtherInLeavesNoCallInFlight(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("quit", "Ends its goroutine", func(context.Context, struct{}) (string, error) {
		runtime.Goexit()
		return "", nil
	}))
	other := &counting{}
	m := metrics.New(metrics.WithRecorder(other))
	ex := executor.MustNew(reg, executor.WithExtensions(m))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "quit", Args: json.RawMessage(`{}`)})
	}()
	<-done
	snap := m.Snapshot()
	assert.Zero(t, snap.InFlight(), "the in-memory recorder: no call is in flight")
	assert.Zero(t, other.inFlight.Load(), "the other recorder: no call is in flight")
	assert.Equal(t, int64(1), other.finished.Load(), "the other recorder is told the call's end")
	assert.Equal(t, uint64(1), snap.Calls("quit", tool.StatusFailed), "the call is counted as the executor answers it (internal)")
	assert.Equal(t, uint64(1), snap.Tools["quit"].Errors[tool.CodeInternal])
}

// flaky panics in Start on every third call (before counting it in
// flight) and in Finish on every fifth (after counting it out).
type flaky struct {
	starts, finishes, inFlight atomic.Int64
}

func (f *flaky) Start(string) {
	if f.starts.Add(1)%3 == 0 {
		panic("recorder: start")
	}
	f.inFlight.Add(1)
}

func (f *flaky) Finish(metrics.Observation) {
	f.inFlight.Add(-1)
	if f.finishes.Add(1)%5 == 0 {
		panic("recorder: finish")
	}
}

// Concurrent calls through a recorder that panics now and then: no call's
// answer changes, and once they are done no call is in flight, in the
// in-memory recorder or in the flaky one's own gauge (a recorder whose
// Start panicked is not told the end, so it never goes below zero).
func TestAttackS30ReviewConcurrentRecorderPanicsLeaveNothingInFlight(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("work", "Works", func(context.Context, struct{}) (string, error) { return "done", nil }))
	f := &flaky{}
	m := metrics.New(metrics.WithRecorder(f))
	ex := executor.MustNew(reg, executor.WithExtensions(m))
	const n = 300
	var failed atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := ex.Execute(context.Background(), tool.Call{ID: fmt.Sprint("c", i), Name: "work", Args: json.RawMessage(`{}`)}); err != nil {
				failed.Add(1)
			}
		}()
	}
	wg.Wait()
	assert.Zero(t, failed.Load(), "calls answered as failed")
	snap := m.Snapshot()
	assert.Zero(t, snap.InFlight())
	assert.Equal(t, uint64(n), snap.Calls("work", tool.StatusSucceeded))
	assert.Zero(t, f.inFlight.Load(), "the flaky recorder's own gauge")
	assert.Equal(t, int64(n-n/3), f.finishes.Load(), "every call it saw start is told its end")
}

// badDecision is a decision value of an extension's own (a fmt.Stringer,
// which Observe reads) whose String panics: a nil pointer.
type badDecision struct{ d *string }

func (b *badDecision) String() string { return *b.d }

// Observe reads a decision through its fmt.Stringer: one that panics was
// let through, and the chain made it the call's answer (code panic),
// after the tool ran. The measurement is lost, not the call's answer.
func TestAttackS30ReviewDecisionStringerPanicIsNotTheCalls(t *testing.T) {
	var paid atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.Func("pay", "Pays an invoice", func(context.Context, struct{}) (string, error) {
		paid.Add(1)
		return "paid", nil
	}))
	var nilDecision *badDecision
	marks := extension.Func("marks", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			res := next(ctx, req)
			res.SetMeta(metrics.MetaApproval, nilDecision)
			return res
		}
	})
	m := metrics.New()
	ex := executor.MustNew(reg, executor.WithExtensions(m, marks))
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "pay", Args: json.RawMessage(`{}`)})
	require.NotNil(t, res)
	assert.NoError(t, err, "the payment went through; the call was answered as failed")
	assert.Equal(t, int64(1), paid.Load())
	snap := m.Snapshot()
	assert.Zero(t, snap.InFlight())
	assert.Equal(t, uint64(1), snap.Calls("pay", tool.StatusSucceeded))
	assert.Equal(t, uint64(1), snap.Tools["pay"].Approvals[metrics.Other], "a decision that cannot be read is counted as other")
}
