package approval

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A deny or ask rule reads a command's options as options: the options a
// rule starts with ("-rf" in rm -rf *) may be bundled, split or reordered,
// anywhere before "--", and the rest of the rule may start after options
// and their values (git -C . push for git push*). Before, shell(git push*)
// let "git -C . push" run under allow_all, and shell(rm -rf *) "rm -fr ~".
func TestDenyRuleReadsOptionsAsOptions(t *testing.T) {
	p := MustPolicy(ModeAllowAll,
		DenyRules("shell(git push*)", "shell(rm -rf *)", "shell(npm publish*)", "shell(git reset --hard*)"),
		AskRules("shell(kubectl delete *)"))
	judge := func(cmd string) Evaluation {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return p.Evaluate(nil, &Request{Call: tool.Call{Name: "shell", Args: args}, Level: classify.Warning})
	}
	for _, cmd := range []string{
		// Options before a subcommand, with or without a value.
		"git -C . push",
		"git -C ../other push origin main",
		"git --no-pager push",
		"git -c core.sshCommand=ssh push --force",
		"git --git-dir=.git --work-tree=. push",
		"git -P -C /repo push",
		"cd /tmp && git -C repo push",
		"sudo git -C . push",
		"npm --registry https://r.example publish",
		"git -C . reset --hard HEAD~3",
		// Short options bundled another way, split, or after an operand.
		"rm -fr ~",
		"rm -r -f /",
		"rm -f -r build",
		"rm -v -rf x",
		"rm -rfv x",
		"rm x -rf",
		"rm -fr \"$HOME\"",
		// Behind an unknown wrapper, as the literal spelling already is.
		"fakeroot git -C . push",
		"fakeroot rm -fr ~",
		// A git alias defined on the line renames the command.
		"git -c alias.p=push p",
		"git --config-env=alias.p=X p",
		"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p",
		"git -c 'alias.p=!rm -rf ~' p",
	} {
		assert.Equal(t, ActionRefuse, judge(cmd).Action, "%q", cmd)
	}
	for _, cmd := range []string{"kubectl --context prod delete pod x", "kubectl -n kube-system delete ns x"} {
		assert.Equal(t, ActionAsk, judge(cmd).Action, "%q", cmd)
	}
	// Options and their values are skipped only before the rest of the
	// rule: a word of another subcommand stops it, and the letters of a
	// rule's options must all be there.
	for _, cmd := range []string{
		"git log --grep push",
		"git commit -m 'push the fix'",
		"git -C . status",
		"git pull",
		"rm -f x",
		"rm -r x",
		"rm -i -v x",
		"echo rm -fr ~",
		"npm --registry x install",
		"git -C . reset --soft HEAD~1",
		"kubectl --context prod get pods",
	} {
		assert.Equal(t, ActionAllow, judge(cmd).Action, "%q", cmd)
	}
}

// A run of options too long to read holds the rule rather than making
// every deny rule cost a regular expression per option.
func TestDenyRuleHoldsPastALongRunOfOptions(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)"))
	cmd := "git " + strings.Repeat("-c a.b=c ", 200) + "push"
	args, _ := json.Marshal(map[string]string{"command": cmd})
	ev := p.Evaluate(nil, &Request{Call: tool.Call{Name: "shell", Args: args}, Level: classify.Warning})
	assert.Equal(t, ActionRefuse, ev.Action)
	cmd = "git " + strings.Repeat("-c a.b=c ", 200) + "status"
	args, _ = json.Marshal(map[string]string{"command": cmd})
	ev = p.Evaluate(nil, &Request{Call: tool.Call{Name: "shell", Args: args}, Level: classify.Warning})
	assert.Equal(t, ActionRefuse, ev.Action, "past the bound the rule holds, whatever follows")
}
