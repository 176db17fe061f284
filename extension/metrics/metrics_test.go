package metrics_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type in struct {
	Gate string `json:"gate,omitempty"`
}

type out struct {
	OK bool `json:"ok"`
}

// gates lets a test hold a "block" call inside its backend.
var (
	gateMu sync.Mutex
	gates  = map[string]chan struct{}{}
)

func gate(name string) chan struct{} {
	gateMu.Lock()
	defer gateMu.Unlock()
	if gates[name] == nil {
		gates[name] = make(chan struct{})
	}
	return gates[name]
}

// release lets the calls held at name go, also one that reaches its gate
// only later (the metrics count a call in flight before its backend
// runs), and forgets the gate when the test ends, so that a second run
// (go test -count=2) holds its calls again.
func release(t *testing.T, name string) {
	close(gate(name))
	t.Cleanup(func() {
		gateMu.Lock()
		defer gateMu.Unlock()
		delete(gates, name)
	})
}

func newExecutor(t testing.TB, exts ...extension.Extension) *executor.Executor {
	t.Helper()
	reg := registry.New()
	reg.MustRegister(
		tool.Func("ok", "Succeeds", func(context.Context, in) (out, error) { return out{OK: true}, nil }),
		tool.Func("fail", "Fails", func(context.Context, in) (out, error) {
			return out{}, tool.NewError(tool.CodeUnavailable, "down")
		}),
		tool.Func("sleep", "Sleeps 30ms", func(context.Context, in) (out, error) {
			time.Sleep(30 * time.Millisecond) // the latency TestLatencyHistogram measures, not a wait
			return out{OK: true}, nil
		}),
		tool.Func("block", "Waits for its gate", func(ctx context.Context, a in) (out, error) {
			select {
			case <-gate(a.Gate):
			case <-ctx.Done():
			}
			return out{OK: true}, nil
		}),
		tool.Func("guarded", "Goes through the fake approval and rate limit", func(context.Context, in) (out, error) { return out{OK: true}, nil }),
	)
	return executor.MustNew(reg, executor.WithExtensions(exts...))
}

// governance stands in for the approval and rate-limit extensions further in:
// the gate argument says what it does.
var governance = extension.Func("governance", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		if req.Call.Name != "guarded" {
			return next(ctx, req)
		}
		var a in
		_ = json.Unmarshal(req.Call.Args, &a)
		switch a.Gate {
		case "deny":
			// As the approval extension denies: the decision in its metadata.
			res := tool.Fail(&req.Call, tool.CodeApprovalDenied, "the operator said no")
			res.SetMeta(approval.MetaKey, map[string]any{"decision": "deny", "decided_by": "operator"})
			return res
		case "limit":
			return tool.Fail(&req.Call, tool.CodeRateLimited, "slow down")
		case "approve-event":
			tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalDecided, Decision: "approve"})
			return next(ctx, req)
		case "modify-meta":
			res := next(ctx, req)
			res.SetMeta(metrics.MetaApproval, "modify")
			return res
		}
		return next(ctx, req)
	}
})

func exec(t testing.TB, ex *executor.Executor, name, gate string) *tool.Result {
	t.Helper()
	args := json.RawMessage(`{}`)
	if gate != "" {
		args, _ = json.Marshal(in{Gate: gate})
	}
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: args})
	require.NotNil(t, res)
	return res
}

func TestCallsByToolAndStatus(t *testing.T) {
	m := metrics.New()
	ex := newExecutor(t, m, governance)
	for range 3 {
		exec(t, ex, "ok", "")
	}
	exec(t, ex, "fail", "")
	exec(t, ex, "guarded", "deny")

	s := m.Snapshot()
	assert.EqualValues(t, 3, s.Calls("ok", tool.StatusSucceeded))
	assert.EqualValues(t, 1, s.Calls("fail", tool.StatusFailed))
	assert.EqualValues(t, 1, s.Tools["fail"].Errors[tool.CodeUnavailable])
	assert.EqualValues(t, 1, s.Calls("guarded", tool.StatusDenied))
	assert.EqualValues(t, 3, s.Tools["ok"].Total())
	assert.Empty(t, s.Tools["ok"].Errors)
	assert.Zero(t, s.InFlight())
}

func TestLatencyHistogram(t *testing.T) {
	m := metrics.New()
	ex := newExecutor(t, m)
	exec(t, ex, "sleep", "")
	exec(t, ex, "sleep", "")

	h := m.Snapshot().Tools["sleep"].Latency
	require.Len(t, h.Counts, len(h.Bounds)+1)
	assert.EqualValues(t, 2, h.Count)
	assert.GreaterOrEqual(t, h.Sum, 60*time.Millisecond)
	var total uint64
	for i, c := range h.Counts {
		total += c
		if i < len(h.Bounds) && h.Bounds[i] < 0.03 {
			assert.Zero(t, c, "a 30ms call cannot land in the ≤%gs bucket", h.Bounds[i])
		}
	}
	assert.EqualValues(t, 2, total)
	cum := h.Cumulative()
	assert.EqualValues(t, 2, cum[len(cum)-1])
}

func TestInFlight(t *testing.T) { synctest.Test(t, testInFlight) }

func testInFlight(t *testing.T) {
	m := metrics.New()
	ex := newExecutor(t, m)
	done := make(chan struct{})
	go func() {
		defer close(done)
		exec(t, ex, "block", "inflight")
	}()
	// Every other goroutine of the bubble is blocked: the call waits at its
	// gate, inside its backend.
	synctest.Wait()
	require.EqualValues(t, 1, m.Snapshot().Tools["block"].InFlight)
	assert.EqualValues(t, 1, m.Snapshot().InFlight())
	release(t, "inflight")
	<-done
	assert.Zero(t, m.Snapshot().Tools["block"].InFlight)
	assert.EqualValues(t, 1, m.Snapshot().Calls("block", tool.StatusSucceeded))
}

func TestApprovalAndRateLimitOutcomes(t *testing.T) {
	m := metrics.New()
	ex := newExecutor(t, m, governance)
	exec(t, ex, "guarded", "deny")
	exec(t, ex, "guarded", "deny")
	exec(t, ex, "guarded", "approve-event")
	exec(t, ex, "guarded", "modify-meta")
	exec(t, ex, "guarded", "limit")
	exec(t, ex, "guarded", "")

	g := m.Snapshot().Tools["guarded"]
	assert.Equal(t, map[string]uint64{"deny": 2, "approve": 1, "modify": 1}, g.Approvals)
	assert.EqualValues(t, 1, g.RateLimited)
	assert.EqualValues(t, 1, g.Errors[tool.CodeRateLimited])
	assert.EqualValues(t, 3, g.Calls[tool.StatusDenied])
	assert.EqualValues(t, 3, g.Calls[tool.StatusSucceeded])
}

// recorder is a Recorder that keeps what it saw.
type recorder struct {
	mu     sync.Mutex
	starts []string
	obs    []metrics.Observation
}

func (r *recorder) Start(name string) { r.mu.Lock(); r.starts = append(r.starts, name); r.mu.Unlock() }
func (r *recorder) Finish(o metrics.Observation) {
	r.mu.Lock()
	r.obs = append(r.obs, o)
	r.mu.Unlock()
}

func TestRecorderFanOut(t *testing.T) {
	rec := &recorder{}
	m := metrics.New(metrics.WithRecorder(rec))
	ex := newExecutor(t, m, governance)
	exec(t, ex, "fail", "")
	exec(t, ex, "guarded", "limit")
	require.Equal(t, []string{"fail", "guarded"}, rec.starts)
	require.Len(t, rec.obs, 2)
	assert.Equal(t, "fail", rec.obs[0].Tool)
	assert.Equal(t, tool.StatusFailed, rec.obs[0].Status)
	assert.Equal(t, tool.CodeUnavailable, rec.obs[0].Code)
	assert.Equal(t, 1, rec.obs[0].Attempts)
	assert.Positive(t, rec.obs[0].Duration)
	assert.True(t, rec.obs[1].RateLimited)
	assert.EqualValues(t, 1, m.Snapshot().Calls("fail", tool.StatusFailed), "the in-memory recorder is fed too")
}

func TestConcurrentCallsCountExactly(t *testing.T) {
	mem := metrics.NewMemory()
	ex := newExecutor(t, metrics.New(metrics.WithMemory(mem)))
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "ok"
			if i%4 == 0 {
				name = "fail"
			}
			res, _ := ex.Execute(context.Background(), tool.Call{Name: name, Args: json.RawMessage(`{}`)})
			_ = res
		}()
	}
	wg.Wait()
	s := mem.Snapshot()
	assert.EqualValues(t, 75, s.Calls("ok", tool.StatusSucceeded))
	assert.EqualValues(t, 25, s.Calls("fail", tool.StatusFailed))
	assert.EqualValues(t, 75, s.Tools["ok"].Latency.Count)
	assert.Zero(t, s.InFlight())
}

func TestObserve(t *testing.T) {
	tests := []struct {
		name string
		res  *tool.Result
		want metrics.Observation
	}{
		{"success", &tool.Result{Status: tool.StatusSucceeded, Attempts: 1}, metrics.Observation{Status: tool.StatusSucceeded, Attempts: 1}},
		{"empty status", &tool.Result{}, metrics.Observation{Status: tool.StatusSucceeded}},
		{"error without status", &tool.Result{Error: tool.NewError(tool.CodeTimeout, "x")}, metrics.Observation{Status: tool.StatusTimedOut, Code: tool.CodeTimeout}},
		{"approval denied", &tool.Result{Status: tool.StatusDenied, Error: tool.NewError(tool.CodeApprovalDenied, "no"), Metadata: map[string]any{"approval": map[string]any{"decision": "deny"}}}, metrics.Observation{Status: tool.StatusDenied, Code: tool.CodeApprovalDenied, Approval: "deny"}},
		// A tool's own error code claims no decision (the executor takes
		// approval metadata out of what a tool returns).
		{"approval_denied code alone", &tool.Result{Status: tool.StatusDenied, Error: tool.NewError(tool.CodeApprovalDenied, "no")}, metrics.Observation{Status: tool.StatusDenied, Code: tool.CodeApprovalDenied}},
		{"rate limited", &tool.Result{Status: tool.StatusDenied, Error: tool.NewError(tool.CodeRateLimited, "wait")}, metrics.Observation{Status: tool.StatusDenied, Code: tool.CodeRateLimited, RateLimited: true}},
		{"approval metadata", &tool.Result{Status: tool.StatusSucceeded, Metadata: map[string]any{"approval": "approve"}}, metrics.Observation{Status: tool.StatusSucceeded, Approval: "approve"}},
		{"approval extension's metadata map", &tool.Result{Status: tool.StatusSucceeded, Metadata: map[string]any{"approval": map[string]any{"decision": "modify", "decided_by": "alice"}}}, metrics.Observation{Status: tool.StatusSucceeded, Approval: "modify"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, metrics.Observe(tc.res)) })
	}
}

func TestPriority(t *testing.T) {
	assert.Equal(t, extension.PriorityMetrics, metrics.New().Priority())
	assert.Equal(t, "metrics", metrics.New().Name())
}
