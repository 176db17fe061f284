package approval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A policy decides what it can; the human at the terminal decides the rest.
func Example() {
	policy := approval.MustPolicy(approval.ModeAuto,
		approval.DenyRules("shell(rm -rf /*)"),
		approval.AllowRules("shell(git status*)"),
	)
	// The terminal reads from a string here; a program passes os.Stdin.
	human := approval.NewTerminal(strings.NewReader("d\nrun the tests first\n"), os.Stdout, approval.TerminalUser("alice"))
	approver := approval.FirstDecisive(policy, human)

	ask := func(command string, level classify.Level) {
		req := approval.Request{
			Call:  tool.Call{ID: "c1", Name: "shell", Args: json.RawMessage(fmt.Sprintf(`{"command":%q}`, command))},
			Spec:  tool.Spec{Name: "shell"},
			Level: level,
		}
		d, err := approver.Approve(context.Background(), req)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("=> %s by %s: %s\n", d.Kind, d.DecidedBy, d.Message)
	}
	ask("git status --short", classify.Warning) // an allow rule
	ask("rm -rf /var", classify.Dangerous)      // a deny rule
	ask("git push origin main", classify.Warning)

	// Output:
	// => approve by policy: the approval rule "allow shell(git status*)" allows this call
	// => deny by policy: the approval rule "deny shell(rm -rf /*)" refuses this call
	//
	// Approval required: shell (call c1)
	//   Danger:  warning
	//   Args:    {"command":"git push origin main"}
	// [A]pprove | [S]ession (these arguments) | [T]ool (this session) | [D]eny | [M]odify | [V]iew details
	// > Reason for the model (empty for none):
	// > => deny by alice: run the tests first
}

// A UI or a remote reviewer pulls requests with Next and answers each with
// ResolvePending, which decides the request it was shown and no other (the
// same call asked again later waits under the same id); the agent's call
// waits in Approve meanwhile.
func ExampleQueue_Next() {
	queue := approval.NewQueue()
	ctx := context.Background()

	reviewer := make(chan struct{})
	go func() {
		defer close(reviewer)
		p, err := queue.Next(ctx)
		if err != nil {
			return
		}
		fmt.Println("reviewing:", p.Request.Call.Name, string(p.Request.Call.Args))
		_ = queue.ResolvePending(ctx, p, approval.Approved("alice"))
	}()

	d, err := queue.Approve(ctx, approval.Request{
		Call: tool.Call{ID: "c1", Name: "write_file", Args: json.RawMessage(`{"path":"notes.md"}`)},
	})
	<-reviewer
	fmt.Println(d.Kind, "by", d.DecidedBy, err)
	// Output:
	// reviewing: write_file {"path":"notes.md"}
	// approve by alice <nil>
}

// An agent that runs with nobody to ask: bash is approved, except what the
// classifier calls dangerous, which is refused rather than left waiting for
// a person. In a configuration file: always_approve: [bash] and
// deny_dangerous: true.
func ExampleDenyDangerous() {
	policy := approval.MustPolicy(approval.ModeAuto,
		approval.AlwaysApprove("bash"),
		approval.DenyDangerous(),
	)
	for _, command := range []string{"git status", "npm install", "rm -rf build"} {
		v := classify.Classify(command)
		req := approval.Request{
			Call:  tool.Call{ID: "c1", Name: "bash", Args: json.RawMessage(fmt.Sprintf(`{"command":%q}`, command))},
			Spec:  tool.Spec{Name: "bash"},
			Level: v.Level, Reasons: v.Reasons,
		}
		ev := policy.Evaluate(nil, &req)
		fmt.Printf("%-12s %-9s => %s (%s)\n", command, v.Level, ev.Action, ev.Rule)
	}
	// Output:
	// git status   safe      => allow (always-approve bash)
	// npm install  warning   => allow (always-approve bash)
	// rm -rf build dangerous => refuse (deny_dangerous)
}

// A policy read from a configuration file: a misspelt setting is an error,
// not a setting silently dropped.
func ExampleParsePolicyConfig() {
	_, err := approval.ParsePolicyConfig([]byte("mode: allow_all\ndeny_dangerus: true\n"))
	fmt.Println(err)

	c, err := approval.ParsePolicyConfig([]byte("mode: allow_all\ndeny_dangerous: true\n"))
	if err != nil {
		panic(err)
	}
	policy, err := c.Policy()
	if err != nil {
		panic(err)
	}
	fmt.Println(policy.Mode(), c.DenyDangerous)
	// Output:
	// approval: policy configuration: line 2: unknown setting "deny_dangerus": did you mean "deny_dangerous"?
	// allow_all true
}
