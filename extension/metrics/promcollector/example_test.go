package promcollector_test

import (
	"context"
	"fmt"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/extension/metrics/promcollector"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func Example() {
	tools := registry.New()
	tools.MustRegister(tool.Func("ping", "Ping", func(context.Context, struct{}) (string, error) { return "pong", nil }))

	col := promcollector.New()
	promReg := prom.NewRegistry()
	promReg.MustRegister(col)

	ex := executor.MustNew(tools, executor.WithExtensions(metrics.New(metrics.WithRecorder(col))))
	_, _ = ex.Execute(context.Background(), tool.Call{Name: "ping"})

	mfs, _ := promReg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "toolbelt_tool_calls_total" {
			fmt.Println(mf.GetName(), mf.GetMetric()[0].GetCounter().GetValue())
		}
	}
	// Output: toolbelt_tool_calls_total 1
}
