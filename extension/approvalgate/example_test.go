package approvalgate_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Install the extension and its guard; low-risk calls run without asking,
// the rest go to the approver (here a function standing in for a human).
func Example() {
	reg := registry.New()
	reg.MustRegister(
		tool.Func("add", "Add two numbers", func(_ context.Context, in struct{ A, B int }) (int, error) { return in.A + in.B, nil },
			tool.WithRisk(tool.RiskLow)),
		tool.Func("delete_file", "Delete a file", func(_ context.Context, in struct {
			Path string `json:"path"`
		}) (string, error) {
			return "deleted " + in.Path, nil
		}, tool.WithRisk(tool.RiskHigh)),
	)
	human := approval.ApproverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		fmt.Printf("asked about %s %s (%s)\n", req.Call.Name, req.Subject, req.Level)
		if req.Subject == "notes.txt" {
			return approval.Approved("alice").WithScope(approval.ScopeSessionTool), nil
		}
		return approval.Denied("alice", "only notes.txt may be deleted"), nil
	})
	policy := approval.MustPolicy(approval.ModeAuto, approval.DenyRules("delete_file(/etc/**)"))
	ext := approvalgate.New(human, approvalgate.WithPolicy(policy))
	ex := executor.MustNew(reg, executor.WithExtensions(ext, ext.Guard()))

	run := func(name, args string) {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "1", Name: name, Args: json.RawMessage(args), Session: "s1"})
		if err != nil {
			fmt.Println("  ", err)
			return
		}
		fmt.Println("  ", res.Text())
	}
	run("add", `{"A":2,"B":3}`)
	run("delete_file", `{"path":"notes.txt"}`)
	run("delete_file", `{"path":"todo.txt"}`) // approved for the session: not asked again
	run("delete_file", `{"path":"/etc/passwd"}`)

	// Output:
	//    5
	// asked about delete_file notes.txt (dangerous)
	//    deleted notes.txt
	//    deleted todo.txt
	//    approval_denied: the approval rule "deny delete_file(/etc/**)" refuses this call
}
