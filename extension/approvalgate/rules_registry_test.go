package approvalgate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A deny or ask rule whose tool name has a typo never matches, so in
// allow_all mode the real tool ran without anyone asked: executor.New must
// refuse such a policy, naming the rule and the closest registered tool.
func TestPolicyRuleNamingUnknownToolIsRefusedByNew(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  approval.PolicyOption
		want []string
	}{
		{"deny typo", approval.DenyRules("delpoy"), []string{`"deny delpoy"`, `"delpoy"`, `did you mean "deploy"?`}},
		{"ask typo with pattern", approval.AskRules("shel(rm *)"), []string{`"ask shel(rm *)"`, `did you mean "shell"?`}},
		{"always-ask typo", approval.AlwaysAsk("deplyo"), []string{`"always-ask deplyo"`, `did you mean "deploy"?`}},
		{"glob matching nothing", approval.DenyRules("git_*"), []string{`"deny git_*"`, "matches no registered tool"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r ran
			ext := approvalgate.New(nil, approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAllowAll, tc.opt)))
			_, err := executor.New(setup(t, &r), executor.WithExtensions(ext, ext.Guard()))
			require.Error(t, err, "a rule naming no registered tool was accepted")
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// Rules that name registered tools, exactly or by a glob that matches one,
// pass; so does a policy with no rules.
func TestPolicyRulesNamingRegisteredToolsPass(t *testing.T) {
	var r ran
	pol := approval.MustPolicy(approval.ModeAllowAll,
		approval.DenyRules("deploy", "shell(rm *)"), approval.AskRules("sh*"),
		approval.AllowRules("calc"), approval.AlwaysApprove("calc"), approval.AlwaysAsk("deploy"))
	ext := approvalgate.New(nil, approvalgate.WithPolicy(pol))
	ex, err := executor.New(setup(t, &r), executor.WithExtensions(ext, ext.Guard()))
	require.NoError(t, err)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "deploy", Args: json.RawMessage(`{"env":"prod"}`)})
	requireDenied(t, res, err, "deny deploy")
	assert.Empty(t, r.list())

	ext2 := approvalgate.New(nil)
	_, err = executor.New(setup(t, &r), executor.WithExtensions(ext2, ext2.Guard()))
	require.NoError(t, err)
}
