package approval

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A deny or ask rule on a command line holds for every simple command the
// line runs, not only the first: after ; && || | or a line break, inside
// ( ), { }, $( ), backquotes, if, for and while bodies, behind wrappers
// (sudo, timeout, xargs) and inside bash -c. Before, shell(git push*)
// let all of these run under allow_all.
func TestDenyRuleHoldsForEveryCommandOfTheLine(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)", "shell(rm -rf *)"), AskRules("shell(kubectl delete *)"))
	judge := func(cmd string) Action {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return p.Evaluate(nil, &Request{Call: tool.Call{Name: "shell", Args: args}, Level: classify.Warning}).Action
	}
	for _, cmd := range []string{
		"true; git push origin main",
		"echo ok && git push",
		"false || git push --force",
		"git status\ngit push",
		"echo x | git push",
		"(git push)",
		"{ git push; }",
		"echo $(git push)",
		"echo `git push`",
		"x=$(git push --force)",
		"if true; then git push; fi",
		"for i in 1; do git push; done",
		"while false; do :; done; git push",
		"sudo git push",
		"timeout 5 git push",
		"bash -c 'git push'",
		"sh -c \"cd /tmp && git push\"",
		"cd /tmp; rm -rf /",
		"ls && sudo rm -rf ~",
	} {
		assert.Equal(t, ActionRefuse, judge(cmd), "%q", cmd)
	}
	for _, cmd := range []string{"ls; kubectl delete pod x", "echo $(kubectl delete ns prod)"} {
		assert.Equal(t, ActionAsk, judge(cmd), "%q", cmd)
	}
	// Harmless lines stay allowed: the words appear only as arguments.
	for _, cmd := range []string{"git pull; git status", "echo git push", "echo 'rm -rf /'", "grep -r 'git push' docs", "ls; echo kubectl delete"} {
		assert.Equal(t, ActionAllow, judge(cmd), "%q", cmd)
	}
}

// An allow rule stays as strict as written: it never approves a line that
// holds a second command, whatever the inner commands are.
func TestAllowRuleDoesNotApproveInnerCommands(t *testing.T) {
	p := MustPolicy(ModeAlwaysAsk, AllowRules("shell(git status*)"))
	judge := func(cmd string) Action {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return p.Evaluate(nil, &Request{Call: tool.Call{Name: "shell", Args: args}, Level: classify.Safe}).Action
	}
	assert.Equal(t, ActionAllow, judge("git status -s"))
	for _, cmd := range []string{"ls; git status", "echo $(git status)", "git status; rm -rf ~"} {
		assert.Equal(t, ActionAsk, judge(cmd), "%q", cmd)
	}
}

// A line the shell can run but the parser cannot all read is held by
// every deny and ask rule: bash runs the lines before a syntax error
// (true; git push then a stray ")"), and a limit stops the judging.
// Before, shell(git push*) let these run under allow_all.
func TestDenyRuleHoldsForALineThatCannotAllBeRead(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)"))
	judge := func(cmd string) Evaluation {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return p.Evaluate(nil, &Request{Call: tool.Call{Name: "shell", Args: args}, Level: classify.Dangerous})
	}
	for _, cmd := range []string{"true; git push\n)", strings.Repeat("true; ", 5000) + "git push", `bash -c 'true; git push; "'`} {
		ev := judge(cmd)
		assert.Equal(t, ActionRefuse, ev.Action, "%.40q", cmd)
		assert.Contains(t, ev.Reason, "cannot all be read", "%.40q", cmd)
	}
	assert.Equal(t, ActionAllow, judge("git status; ls").Action)
}
