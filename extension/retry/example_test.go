package retry_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/retry"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func Example() {
	var runs atomic.Int32
	reg := registry.New()
	reg.MustRegister(tool.Func("weather", "Current weather", func(context.Context, struct{}) (string, error) {
		if runs.Add(1) < 3 {
			return "", tool.NewError(tool.CodeUnavailable, "upstream returned 503")
		}
		return "sunny", nil
	}, tool.ReadOnly()))
	ex := executor.MustNew(reg, executor.WithExtensions(retry.New(retry.Backoff(time.Millisecond, 10*time.Millisecond))))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := ex.Execute(ctx, tool.Call{Name: "weather"})
	fmt.Println(res.Text(), err, res.Attempts)
	// Output:
	// sunny <nil> 3
}
