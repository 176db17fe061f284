package extension_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A user-written extension: refuse calls outside office hours, and stamp
// every result with the extension's name. It runs between auth and policy.
func Example() {
	officeHours := false
	guard := extension.Hooks{
		ExtName: "office-hours",
		Prio:    extension.PriorityAuth + 50,
		Before: func(ctx context.Context, req *extension.Request) *tool.Result {
			if !officeHours && req.Spec.Risk >= tool.RiskHigh {
				return tool.Fail(&req.Call, tool.CodePolicyDenied, "high-risk tools run only in office hours")
			}
			return nil
		},
		After: func(ctx context.Context, req *extension.Request, res *tool.Result) {
			res.SetMeta("checked_by", "office-hours")
		},
	}
	type Args struct {
		Service string `json:"service"`
	}
	restart := func(ctx context.Context, a Args) (string, error) { return "restarted " + a.Service, nil }
	status := func(ctx context.Context, a Args) (string, error) { return a.Service + " is up", nil }

	reg := registry.New()
	reg.MustRegister(
		tool.Func("restart", "Restart a service", restart, tool.WithRisk(tool.RiskHigh)),
		tool.Func("status", "Show a service's status", status),
	)
	ex := executor.MustNew(reg, executor.WithExtensions(guard))
	args := json.RawMessage(`{"service":"api"}`)
	for _, name := range []string{"status", "restart"} {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "1", Name: name, Args: args})
		fmt.Println(name, res.Status, res.Text(), res.Err(), res.Metadata["checked_by"])
	}
	// Output:
	// status succeeded api is up <nil> office-hours
	// restart denied  policy_denied: high-risk tools run only in office hours office-hours
}
