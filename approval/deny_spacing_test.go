package approval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A deny or ask rule on a command line holds however the command is
// spaced: blanks before it, runs of spaces or tabs between its words, a
// backslash-newline inside it are the same command to the shell. Before,
// shell(git push*) refused "git push" and let " git push", "git  push",
// "git\tpush" and "git \\\npush" run under allow_all.
func TestDenyRuleHoldsHoweverTheCommandIsSpaced(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)"), AskRules("shell(rm -r *)"))
	judge := func(cmd string) Action {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return p.Evaluate(nil, &Request{Call: tool.Call{Name: "shell", Args: args}, Level: classify.Warning}).Action
	}
	for _, cmd := range []string{"git push", " git push", "git  push", "git\tpush", "\tgit push origin", "\n git push", "git \\\npush", "git\\\n push -f"} {
		assert.Equal(t, ActionRefuse, judge(cmd), "%q", cmd)
	}
	for _, cmd := range []string{"rm -r build", "rm  -r build", " rm -r\tbuild"} {
		assert.Equal(t, ActionAsk, judge(cmd), "%q", cmd)
	}
	for _, cmd := range []string{"git pull", "git status", "echo 'git  push'", "gitpush"} {
		assert.Equal(t, ActionAllow, judge(cmd), "%q", cmd)
	}
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("shell(git status*)"))
	args, _ := json.Marshal(map[string]string{"command": "git  status"})
	assert.Equal(t, ActionAsk, allow.Evaluate(nil, &Request{Call: tool.Call{Name: "shell", Args: args}, Level: classify.Safe}).Action,
		"allow rules stay as strict as written")
}
