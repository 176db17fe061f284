package approvalgate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
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

// An ignored approval.NewPolicy error leaves a nil *Policy; WithPolicy(nil)
// kept the default auto policy, so a deny_all policy whose construction
// failed let safe calls run unasked. executor.New refuses it.
func TestNilPolicyIsRefusedByNew(t *testing.T) {
	var r ran
	pol, err := approval.NewPolicy(approval.ModeDenyAll, approval.DenyRules("shell(rm *"))
	require.Error(t, err)
	ext := approvalgate.New(nil, approvalgate.WithPolicy(pol))
	ex, err := executor.New(setup(t, &r), executor.WithExtensions(ext, ext.Guard()))
	if err == nil {
		_, _ = ex.Execute(context.Background(), tool.Call{ID: "c", Name: "calc", Args: json.RawMessage(`{"a":1,"b":2}`)})
	}
	require.Error(t, err, "a nil policy was accepted (calls ran: %v)", r.list())
	assert.Contains(t, err.Error(), "WithPolicy(nil)")
}

// Chained by hand (no executor.New to refuse it), the extension with a nil
// policy refuses every call rather than fall back to auto.
func TestNilPolicyFailsClosedOutsideNew(t *testing.T) {
	var pol *approval.Policy
	ext := approvalgate.New(nil, approvalgate.WithPolicy(pol))
	ran := false
	h := extension.Chain(func(context.Context, *extension.Request) *tool.Result {
		ran = true
		return &tool.Result{}
	}, ext, ext.Guard())
	spec := tool.Spec{Name: "calc", Risk: tool.RiskLow}
	res := h(context.Background(), &extension.Request{Call: tool.Call{ID: "1", Name: "calc", Args: json.RawMessage(`{}`)}, Spec: &spec})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
	assert.ErrorContains(t, res.Error.Err, "WithPolicy(nil)")
	assert.False(t, ran)
}
