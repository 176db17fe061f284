package auth_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A rule's category that no registered tool has (a typo: "Admin" for
// "admin") covered nothing, and executor.New said nothing: with
// AllowUnlisted the tools it was meant to restrict were open to every
// principal. It is now refused as a tool name no tool has is.
func TestRuleForUnknownCategoryRefusedByNew(t *testing.T) {
	f := newFixture(t)
	a := auth.New(auth.WithRules(auth.Rule{Name: "admins", Role: "admin", Categories: []string{"Admin"}}), auth.AllowUnlisted())
	ex, err := executor.New(f.reg, executor.WithExtensions(a))
	if err == nil {
		res, _ := ex.Execute(context.Background(), call("delete_repo", dave))
		t.Logf("dave, no roles, called delete_repo: %v", res.Status)
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), `rule "admins" names category "Admin", which no registered tool has: did you mean "admin"?`)

	_, err = executor.New(f.reg, executor.WithExtensions(auth.New(auth.WithRules(auth.Rule{Role: "admin", Categories: []string{"payroll"}}))))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `names category "payroll", which no registered tool has: the categories are admin, files, network`)

	_, err = executor.New(f.reg, executor.WithExtensions(auth.New(auth.WithRules(auth.Rule{Role: "admin", Categories: []string{"admin", "files"}}))))
	require.NoError(t, err, "categories registered tools have are fine")
}

// Under DenyByDefault the refusal of a tool no rule covers told the
// developer to use AllowUnlisted, which DenyByDefault overrides: the fix it
// named did nothing.
func TestDenyByDefaultRefusalNamesAFixThatWorks(t *testing.T) {
	for name, opts := range map[string][]auth.Option{
		"no rules":                {auth.DenyByDefault()},
		"rules":                   {auth.Allow("reader", "read_*"), auth.DenyByDefault()},
		"rules and AllowUnlisted": {auth.Allow("reader", "read_*"), auth.DenyByDefault(), auth.AllowUnlisted()},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := auth.New(opts...).Authorize(dave, &tool.Spec{Name: "web_search"})
			te := tool.AsError(err)
			require.NotNil(t, te)
			require.Error(t, te.Err)
			assert.Contains(t, te.Err.Error(), `auth.Allow(role, "web_search")`)
			assert.Contains(t, te.Err.Error(), "auth.DenyByDefault", "the cause names the setting that refused it")
			assert.NotContains(t, te.Err.Error(), "open the tools no rule names with auth.AllowUnlisted", "AllowUnlisted does not open tools under DenyByDefault")
		})
	}
}

// Every refusal tells the developer how to let the call through, in the
// cause (never in the model's message): the role a covering rule wants,
// and the ceiling a rule sets.
func TestEveryRefusalNamesTheFix(t *testing.T) {
	a := auth.New(auth.WithRules(
		auth.Rule{Name: "admins", Role: "admin", Tools: []string{"delete_repo"}},
		auth.Rule{Name: "writers", Role: "writer", Categories: []string{"files"}, MaxRisk: auth.Ceiling(tool.RiskLow)},
	))
	for _, tc := range []struct {
		spec tool.Spec
		who  tool.Principal
		rule string
		fix  []string
	}{
		{tool.Spec{Name: "delete_repo", Risk: tool.RiskHigh}, carol, "admins", []string{`role "admin"`, `"carol"`}},
		{tool.Spec{Name: "write_file", Category: "files", Risk: tool.RiskMedium}, carol, "writers", []string{`MaxRisk of rule "writers"`, "tool.RiskMedium"}},
		{tool.Spec{Name: "web_search"}, carol, auth.RuleDenyByDefault, []string{"auth.Allow"}},
		{tool.Spec{Name: "web_search"}, tool.Principal{}, auth.RuleRequirePrincipal, []string{"tool.WithPrincipal"}},
	} {
		rule, err := a.Authorize(tc.who, &tc.spec)
		require.Error(t, err, tc.spec.Name)
		assert.Equal(t, tc.rule, rule)
		te := tool.AsError(err)
		require.NotNil(t, te)
		if assert.Error(t, te.Err, "%s: the refusal has a cause for the developer", tc.spec.Name) {
			for _, s := range tc.fix {
				assert.Contains(t, te.Err.Error(), s, tc.spec.Name)
			}
		}
		assert.NotContains(t, te.Message, "auth.", "code advice is for the developer, not the model")
	}
}
