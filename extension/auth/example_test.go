package auth_test

import (
	"context"
	"fmt"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func Example() {
	reg := registry.New()
	reg.MustRegister(
		tool.Func("read_file", "Read a file", func(context.Context, struct{}) (string, error) { return "contents", nil },
			tool.WithCategory("files")),
		tool.Func("delete_file", "Delete a file", func(context.Context, struct{}) (string, error) { return "deleted", nil },
			tool.WithCategory("files"), tool.WithRisk(tool.RiskHigh)),
	)
	a := auth.New(auth.WithRules(
		auth.Rule{Name: "staff-files", Role: "staff", Categories: []string{"files"}, MaxRisk: auth.Ceiling(tool.RiskMedium)},
		auth.Rule{Name: "admins", Role: "admin"},
	))
	ex := executor.MustNew(reg, executor.WithExtensions(a))

	ctx := tool.WithPrincipal(context.Background(), tool.Principal{ID: "bob", Roles: []string{"staff"}})
	res, _ := ex.Execute(ctx, tool.Call{Name: "read_file"})
	fmt.Println(res.Status, res.Text())
	// Bob is answered as if delete_file did not exist; the program (and
	// the logs, the audit trail) read auth's refusal in the cause.
	res, _ = ex.Execute(ctx, tool.Call{Name: "delete_file"})
	fmt.Println(res.Status, res.Error)
	fmt.Println(res.Error.Err, "|", res.Metadata[auth.MetaRule])
	// Output:
	// succeeded contents
	// failed not_found: no tool named "delete_file": available tools are read_file
	// unauthorized: rule "staff-files" allows principal "bob" (roles staff) tools up to risk medium; tool "delete_file" is risk high | staff-files
}
