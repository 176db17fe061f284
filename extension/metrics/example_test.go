package metrics_test

import (
	"context"
	"fmt"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func Example() {
	reg := registry.New()
	reg.MustRegister(tool.Func("echo", "Echo a word", func(_ context.Context, in struct {
		Word string `json:"word"`
	}) (string, error) {
		if in.Word == "" {
			return "", tool.NewError(tool.CodeInvalidArguments, "say something")
		}
		return in.Word, nil
	}))
	m := metrics.New()
	ex := executor.MustNew(reg, executor.WithExtensions(m))
	ctx := context.Background()
	_, _ = ex.Execute(ctx, tool.Call{Name: "echo", Args: []byte(`{"word":"hi"}`)})
	_, _ = ex.Execute(ctx, tool.Call{Name: "echo", Args: []byte(`{"word":""}`)})

	s := m.Snapshot().Tools["echo"]
	fmt.Println("succeeded:", s.Calls[tool.StatusSucceeded])
	fmt.Println("failed:", s.Calls[tool.StatusFailed], s.Errors)
	fmt.Println("observed:", s.Latency.Count, "in flight:", s.InFlight)
	// Output:
	// succeeded: 1
	// failed: 1 map[invalid_arguments:1]
	// observed: 2 in flight: 0
}
