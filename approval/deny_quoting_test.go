package approval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A deny rule on a command line holds however the shell is told the same
// command: quotes or backslashes inside its words, $IFS for a blank, a
// leading command/env/exec or variable assignment. Before, shell(git
// push*) let all of these run under allow_all.
func TestDenyRuleHoldsHoweverTheCommandIsQuoted(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)"))
	judge := func(cmd string) Action {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return p.Evaluate(nil, &Request{Call: tool.Call{Name: "shell", Args: args}, Level: classify.Warning}).Action
	}
	for _, cmd := range []string{"gi''t push", `\git push`, "command git push", "env git push", "env\tGIT_DIR=x git push",
		"git${IFS}push", "git$IFS'push'", "'git' push", `"git" push`, "x=1 git push", "exec git push -f"} {
		assert.Equal(t, ActionRefuse, judge(cmd), "%q", cmd)
	}
	for _, cmd := range []string{"git pull", "echo git push", "gitpush"} {
		assert.Equal(t, ActionAllow, judge(cmd), "%q", cmd)
	}
}
