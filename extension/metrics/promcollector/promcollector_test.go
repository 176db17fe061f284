package promcollector_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/extension/metrics/promcollector"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type in struct {
	Mode string `json:"mode,omitempty"`
}

func newExecutor(t testing.TB, col *promcollector.Collector) *executor.Executor {
	t.Helper()
	reg := registry.New()
	reg.MustRegister(tool.Func("work", "Does work", func(_ context.Context, a in) (string, error) {
		if a.Mode == "fail" {
			return "", tool.NewError(tool.CodeUnavailable, "down")
		}
		return "done", nil
	}))
	gov := extension.Func("gov", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			switch {
			case strings.Contains(string(req.Call.Args), "deny"):
				res := tool.Fail(&req.Call, tool.CodeApprovalDenied, "no")
				res.SetMeta(approval.MetaKey, map[string]any{"decision": "deny"})
				return res
			case strings.Contains(string(req.Call.Args), "limit"):
				return tool.Fail(&req.Call, tool.CodeRateLimited, "wait")
			}
			return next(ctx, req)
		}
	})
	return executor.MustNew(reg, executor.WithExtensions(metrics.New(metrics.WithRecorder(col)), gov))
}

func run(t *testing.T, ex *executor.Executor, mode string) {
	t.Helper()
	args, _ := json.Marshal(in{Mode: mode})
	_, _ = ex.Execute(context.Background(), tool.Call{Name: "work", Args: args})
}

func TestCollectorOnARealRegistry(t *testing.T) {
	col := promcollector.New()
	reg := prom.NewRegistry()
	require.NoError(t, reg.Register(col))
	ex := newExecutor(t, col)
	run(t, ex, "")
	run(t, ex, "")
	run(t, ex, "fail")
	run(t, ex, "deny")
	run(t, ex, "limit")

	expected := `
# HELP toolbelt_tool_calls_total Tool calls by tool, status and error code (empty on success).
# TYPE toolbelt_tool_calls_total counter
toolbelt_tool_calls_total{code="",status="succeeded",tool="work"} 2
toolbelt_tool_calls_total{code="approval_denied",status="denied",tool="work"} 1
toolbelt_tool_calls_total{code="rate_limited",status="denied",tool="work"} 1
toolbelt_tool_calls_total{code="unavailable",status="failed",tool="work"} 1
# HELP toolbelt_tool_approvals_total Approval decisions by tool and decision (approve, deny, modify).
# TYPE toolbelt_tool_approvals_total counter
toolbelt_tool_approvals_total{decision="deny",tool="work"} 1
# HELP toolbelt_tool_rate_limited_total Tool calls refused by a rate limit.
# TYPE toolbelt_tool_rate_limited_total counter
toolbelt_tool_rate_limited_total{tool="work"} 1
# HELP toolbelt_tool_calls_in_flight Tool calls running now.
# TYPE toolbelt_tool_calls_in_flight gauge
toolbelt_tool_calls_in_flight{tool="work"} 0
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(expected),
		"toolbelt_tool_calls_total", "toolbelt_tool_approvals_total", "toolbelt_tool_rate_limited_total", "toolbelt_tool_calls_in_flight"))

	// The histogram: gather and read the real sample count and buckets.
	mfs, err := reg.Gather()
	require.NoError(t, err)
	var found bool
	for _, mf := range mfs {
		if mf.GetName() != "toolbelt_tool_call_duration_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "status" && lp.GetValue() == "succeeded" {
					found = true
					h := m.GetHistogram()
					assert.EqualValues(t, 2, h.GetSampleCount())
					assert.Len(t, h.GetBucket(), len(metrics.Buckets))
					assert.Positive(t, h.GetSampleSum())
				}
			}
		}
	}
	assert.True(t, found, "the duration histogram was gathered")
}

func TestOptions(t *testing.T) {
	col := promcollector.New(promcollector.WithNamespace("app"), promcollector.WithBuckets(0.5, 1),
		promcollector.WithConstLabels(prom.Labels{"service": "svc"}))
	reg := prom.NewRegistry()
	require.NoError(t, reg.Register(col))
	run(t, newExecutor(t, col), "")
	mfs, err := reg.Gather()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, mf := range mfs {
		names[mf.GetName()] = true
		if mf.GetName() == "app_tool_call_duration_seconds" {
			assert.Len(t, mf.GetMetric()[0].GetHistogram().GetBucket(), 2)
		}
		var svc string
		for _, lp := range mf.GetMetric()[0].GetLabel() {
			if lp.GetName() == "service" {
				svc = lp.GetValue()
			}
		}
		assert.Equal(t, "svc", svc, "const label on %s", mf.GetName())
	}
	assert.True(t, names["app_tool_calls_total"])
	assert.True(t, names["app_tool_call_duration_seconds"])
}

func TestConcurrent(t *testing.T) {
	col := promcollector.New()
	ex := newExecutor(t, col)
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() { defer wg.Done(); run(t, ex, "") }()
	}
	wg.Wait()
	reg := prom.NewRegistry()
	require.NoError(t, reg.Register(col))
	expected := `
# HELP toolbelt_tool_calls_total Tool calls by tool, status and error code (empty on success).
# TYPE toolbelt_tool_calls_total counter
toolbelt_tool_calls_total{code="",status="succeeded",tool="work"} 50
`
	assert.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(expected), "toolbelt_tool_calls_total"))
}
