package approval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A relative path after a cd in the line names a path under the cd's
// directory: "cd /etc && cat shadow" reads /etc/shadow. The rules matched
// each command as written, so deny shell(cat /etc/shadow*) and shell(rm
// -rf secrets*) let every line below run under allow_all. A cd whose
// directory the shell computes ("$d", ~, -, none) may lead anywhere: a
// rule naming a path holds for the commands after it that it names.
func TestAttackCdInTheLineMovesRelativePaths(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(cat /etc/shadow*)", "shell(rm -rf secrets*)"), AskRules("shell(tee secrets/*)"))
	judge := func(cmd string) Action {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return p.Evaluate(nil, &Request{Call: tool.Call{Name: "shell", Args: args}, Level: classify.Safe}).Action
	}
	for _, cmd := range []string{
		"cat /etc/shadow",
		"cd /etc && cat shadow",
		"cd /etc; cat ./shadow",
		"cd / && cat etc/shadow",
		"cd /tmp/../etc && cat shadow",
		"cd /usr && cd ../etc && cat shadow",
		"pushd /etc && cat shadow",
		"cd -P /etc && cat shadow",
		"cd -- /etc && cat shadow",
		"(cd /etc; cat shadow)",
		"bash -c 'cd /etc && cat shadow'",
		"cd secrets && rm -rf .",
		"cd secrets/.. && cd secrets && rm -rf sub",
		"cd \"$D\" && cat shadow",
		"cd ~ && cd ../../etc && cat shadow",
		"cd - && cat shadow",
	} {
		assert.Equal(t, ActionRefuse, judge(cmd), "%q", cmd)
	}
	args, _ := json.Marshal(map[string]string{"command": "cd \"$D\" && cat shadow"})
	ev := p.Evaluate(nil, &Request{Call: tool.Call{Name: "shell", Args: args}, Level: classify.Safe})
	assert.Contains(t, ev.Reason, "changes into a directory it computes", "the refusal says why")
	for _, cmd := range []string{"cd secrets && tee key", "cd secrets; echo x | tee ./key"} {
		assert.Equal(t, ActionAsk, judge(cmd), "%q", cmd)
	}
	for _, cmd := range []string{
		"cd /etc && cat hosts",
		"cd src && cat shadow",
		"cat shadow",
		"cd /tmp && rm -rf build",
		"cat shadow; cd /etc",
		"cd \"$D\" && ls",
		"cd src && tee out",
	} {
		assert.Equal(t, ActionAllow, judge(cmd), "%q", cmd)
	}
}
