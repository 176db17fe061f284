package promcollector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/extension/metrics/promcollector"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// value is mode past prefix, each U+FFFD the byte 0xff (JSON arguments
// cannot carry it).
func value(mode, prefix string) string {
	return strings.ReplaceAll(strings.TrimPrefix(mode, prefix), "\uFFFD", "\xff")
}

// The labels status, code and decision are closed sets, as the in-memory
// recorder counts them (metrics.Other outside them). A tool of the
// program's own (a tool.Tool) says its result's Status, and an extension
// inside metrics its error's code and its approval metadata: the collector
// made a label of each value, one more series per value, and Prometheus
// refuses a label that is not UTF-8 with a panic, so the call was not
// counted at all.
func TestAttackS30LabelsAreClosedSets(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.New("work", "Does work", func(_ context.Context, c tool.Call) (*tool.Result, error) {
		var a in
		_ = json.Unmarshal(c.Args, &a)
		if strings.HasPrefix(a.Mode, "status ") {
			return &tool.Result{Status: tool.Status(value(a.Mode, "status "))}, nil
		}
		return &tool.Result{Content: []tool.Content{tool.TextContent("done")}}, nil
	}))
	inner := extension.Func("inner", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			var a in
			_ = json.Unmarshal(req.Call.Args, &a)
			switch {
			case strings.HasPrefix(a.Mode, "code "):
				return tool.Fail(&req.Call, tool.Code(value(a.Mode, "code ")), "refused")
			case strings.HasPrefix(a.Mode, "decision "):
				res := next(ctx, req)
				res.SetMeta(metrics.MetaApproval, value(a.Mode, "decision "))
				return res
			}
			return next(ctx, req)
		}
	})
	col := promcollector.New()
	preg := prom.NewRegistry()
	require.NoError(t, preg.Register(col))
	ex := executor.MustNew(reg, executor.WithExtensions(metrics.New(metrics.WithRecorder(col)), inner))
	for i := range 100 {
		for _, mode := range []string{fmt.Sprintf("status ok-%d", i), fmt.Sprintf("code quota-%d", i), fmt.Sprintf("decision maybe-%d", i)} {
			args, _ := json.Marshal(in{Mode: mode})
			_, _ = ex.Execute(context.Background(), tool.Call{Name: "work", Args: args})
		}
	}
	for _, mode := range []string{"status ok\xff", "code quota\xff", "decision maybe\xff"} {
		_, _ = ex.Execute(context.Background(), tool.Call{Name: "work", Args: json.RawMessage(`{"mode":"` + mode + `"}`)})
	}

	expected := `
# HELP toolbelt_tool_calls_total Tool calls by tool, status and error code (empty on success).
# TYPE toolbelt_tool_calls_total counter
toolbelt_tool_calls_total{code="",status="other",tool="work"} 101
toolbelt_tool_calls_total{code="",status="succeeded",tool="work"} 101
toolbelt_tool_calls_total{code="other",status="failed",tool="work"} 101
# HELP toolbelt_tool_approvals_total Approval decisions by tool and decision (approve, deny, modify).
# TYPE toolbelt_tool_approvals_total counter
toolbelt_tool_approvals_total{decision="other",tool="work"} 101
`
	require.NoError(t, testutil.GatherAndCompare(preg, strings.NewReader(expected), "toolbelt_tool_calls_total", "toolbelt_tool_approvals_total"))
}
