package otelmetric_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/extension/metrics/otelmetric"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type in struct {
	Mode string `json:"mode,omitempty"`
}

func setup(t *testing.T) (*executor.Executor, *sdkmetric.ManualReader) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	rec, err := otelmetric.New(mp)
	require.NoError(t, err)

	reg := registry.New()
	reg.MustRegister(tool.Func("work", "Does work", func(_ context.Context, a in) (string, error) {
		if a.Mode == "fail" {
			return "", tool.NewError(tool.CodeUnavailable, "down")
		}
		return "done", nil
	}))
	gov := extension.Func("gov", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			var a in
			_ = json.Unmarshal(req.Call.Args, &a)
			switch a.Mode {
			case "deny":
				res := tool.Fail(&req.Call, tool.CodeApprovalDenied, "no")
				res.SetMeta(approval.MetaKey, map[string]any{"decision": "deny"})
				return res
			case "limit":
				return tool.Fail(&req.Call, tool.CodeRateLimited, "wait")
			}
			return next(ctx, req)
		}
	})
	return executor.MustNew(reg, executor.WithExtensions(metrics.New(metrics.WithRecorder(rec)), gov)), reader
}

func run(ex *executor.Executor, mode string) {
	args, _ := json.Marshal(in{Mode: mode})
	_, _ = ex.Execute(context.Background(), tool.Call{Name: "work", Args: args})
}

func find(t *testing.T, rm metricdata.ResourceMetrics, name string) metricdata.Aggregation {
	t.Helper()
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != otelmetric.ScopeName {
			continue
		}
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m.Data
			}
		}
	}
	t.Fatalf("instrument %s not found", name)
	return nil
}

func TestInstrumentsReadBack(t *testing.T) {
	ex, reader := setup(t)
	run(ex, "")
	run(ex, "")
	run(ex, "fail")
	run(ex, "deny")
	run(ex, "limit")

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))

	calls := find(t, rm, "toolbelt.tool.calls").(metricdata.Sum[int64])
	got := map[string]int64{}
	for _, dp := range calls.DataPoints {
		st, _ := dp.Attributes.Value(otelmetric.KeyStatus)
		code, _ := dp.Attributes.Value(otelmetric.KeyCode)
		tl, _ := dp.Attributes.Value(otelmetric.KeyTool)
		assert.Equal(t, "work", tl.AsString())
		got[st.AsString()+"/"+code.AsString()] = dp.Value
	}
	assert.Equal(t, map[string]int64{"succeeded/": 2, "failed/unavailable": 1, "denied/approval_denied": 1, "denied/rate_limited": 1}, got)

	hist := find(t, rm, "toolbelt.tool.call.duration").(metricdata.Histogram[float64])
	var succeeded *metricdata.HistogramDataPoint[float64]
	for i, dp := range hist.DataPoints {
		if v, _ := dp.Attributes.Value(otelmetric.KeyStatus); v.AsString() == "succeeded" {
			succeeded = &hist.DataPoints[i]
		}
	}
	require.NotNil(t, succeeded)
	assert.EqualValues(t, 2, succeeded.Count)
	assert.Equal(t, metrics.Buckets, succeeded.Bounds)
	assert.Positive(t, succeeded.Sum)

	inflight := find(t, rm, "toolbelt.tool.calls.in_flight").(metricdata.Sum[int64])
	require.Len(t, inflight.DataPoints, 1)
	assert.Zero(t, inflight.DataPoints[0].Value)
	assert.False(t, inflight.IsMonotonic)

	appr := find(t, rm, "toolbelt.tool.approvals").(metricdata.Sum[int64])
	require.Len(t, appr.DataPoints, 1)
	assert.Equal(t, int64(1), appr.DataPoints[0].Value)
	d, _ := appr.DataPoints[0].Attributes.Value(otelmetric.KeyDecision)
	assert.Equal(t, "deny", d.AsString())

	rl := find(t, rm, "toolbelt.tool.rate_limited").(metricdata.Sum[int64])
	require.Len(t, rl.DataPoints, 1)
	assert.Equal(t, int64(1), rl.DataPoints[0].Value)
	assert.Equal(t, attribute.NewSet(otelmetric.KeyTool.String("work")), rl.DataPoints[0].Attributes)
}

func TestNilProviderUsesGlobal(t *testing.T) {
	rec, err := otelmetric.New(nil)
	require.NoError(t, err)
	rec.Start("x") // the global no-op provider accepts everything
	rec.Finish(metrics.Observation{Tool: "x"})
}
