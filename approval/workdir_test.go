package approval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// A bash call's danger is judged where the command runs: in its workdir,
// and after a cd in the line. The approval policy takes the level from the
// tool (LevelOf), so "printf x > config" in .git (which writes
// .git/config, a file git runs programs from) is asked about in auto mode
// with ApproveWarnings and refused with DenyDangerous, as the same write
// named .git/config is; in the workspace root it writes a plain file and
// runs. A guard: it holds on the current code (tool/shell judges the line
// as if it began with cd WORKDIR). Nothing here runs bash.
func TestBashCallIsJudgedInItsWorkdir(t *testing.T) {
	bash := bashIn(t, ".git")
	spec := bash.Spec()
	warnOK := MustPolicy(ModeAuto, ApproveWarnings())
	denyDanger := MustPolicy(ModeAllowAll, DenyDangerous())
	judge := func(p *Policy, args map[string]string) Action {
		b, _ := json.Marshal(args)
		level, _ := LevelOf(bash, &spec, b)
		return p.Evaluate(bash, &Request{Call: tool.Call{Name: spec.Name, Args: b}, Spec: spec, Level: level}).Action
	}
	for _, args := range []map[string]string{
		{"command": "printf x > config", "workdir": ".git"},
		{"command": "printf x > config", "workdir": "./.git/"},
		{"command": "cd .git && printf x > config"},
		{"command": "printf x > .git/config"},
	} {
		assert.Equal(t, ActionAsk, judge(warnOK, args), "%v", args)
		assert.Equal(t, ActionRefuse, judge(denyDanger, args), "%v", args)
	}
	plain := map[string]string{"command": "printf x > config"}
	b, _ := json.Marshal(plain)
	level, _ := LevelOf(bash, &spec, b)
	assert.Equal(t, classify.Warning, level)
	assert.Equal(t, ActionAllow, judge(warnOK, plain), "a plain file in the root")
	assert.Equal(t, ActionAllow, judge(denyDanger, plain))
}

// Rules read a bash call's command line as run in its workdir: "rm -rf ."
// in secrets is "cd secrets && rm -rf .", which a deny rule for rm -rf
// secrets refuses, and an allow rule for the bare line does not cover it.
// Subject was the bare command, so the rules never saw the workdir: the
// call ran unasked under allow_all.
func TestAttackRulesSeeABashCallsWorkdir(t *testing.T) {
	bash := bashIn(t, "secrets")
	spec := bash.Spec()
	p := MustPolicy(ModeAllowAll, DenyRules("bash(rm -rf secrets*)"))
	judge := func(args map[string]string) Evaluation {
		b, _ := json.Marshal(args)
		return p.Evaluate(bash, &Request{Call: tool.Call{Name: spec.Name, Args: b}, Spec: spec, Level: classify.Safe})
	}
	assert.Equal(t, ActionRefuse, judge(map[string]string{"command": "rm -rf .", "workdir": "secrets"}).Action)
	assert.Equal(t, ActionRefuse, judge(map[string]string{"command": "rm -rf secrets"}).Action)
	assert.Equal(t, ActionAllow, judge(map[string]string{"command": "rm -rf build"}).Action)

	ask := MustPolicy(ModeAlwaysAsk, AllowRules("bash(git status*)"))
	b, _ := json.Marshal(map[string]string{"command": "git status", "workdir": "secrets"})
	assert.Equal(t, ActionAsk, ask.Evaluate(bash, &Request{Call: tool.Call{Name: spec.Name, Args: b}, Spec: spec, Level: classify.Safe}).Action,
		"an allow rule for the bare line does not cover it run elsewhere")
	assert.Equal(t, "cd -- secrets\ngit status", bash.Subject(b), "what a person asked reads")
}

// bashIn is the bash tool of a workspace holding the directory sub, run by
// the process engine (the tests here only judge its calls).
func bashIn(t *testing.T, sub string) *shell.Bash {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, sub), 0o755))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	sb, err := sandbox.New("process", sandbox.WithWorkspace(dir))
	require.NoError(t, err)
	bash, err := shell.NewBash(sb, ws)
	require.NoError(t, err)
	return bash
}
