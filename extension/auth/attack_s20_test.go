package auth_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// New copies the rules' Tools and Categories, so that the extension is, as
// its doc says, immutable after New; MaxRisk, a pointer, was kept as
// given. A host that points a rule at a variable and then reuses the
// variable (for the next role's ceiling, or a configuration reload) after
// New changed what the built extension allowed, with no data race
// detector to say so outside tests: the intern's "low" became "high" and
// the intern dropped the tables.
func TestAttackS20CeilingChangedAfterNewChangesTheRule(t *testing.T) {
	var dropped atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.Func("drop_tables", "Drop every table", func(context.Context, struct{}) (string, error) {
		dropped.Add(1)
		return "dropped", nil
	}, tool.WithRisk(tool.RiskHigh)))

	ceiling := tool.RiskLow // the intern's, from the configuration
	a := auth.New(auth.WithRules(auth.Rule{Role: "intern", Tools: []string{"drop_tables"}, MaxRisk: &ceiling}))
	ex := executor.MustNew(reg, executor.WithExtensions(a))
	ceiling = tool.RiskHigh // the variable reused for the next role's, after New

	res, _ := ex.Execute(context.Background(), call("drop_tables", tool.Principal{ID: "ian", Roles: []string{"intern"}}))
	if assert.NotNil(t, res.Error, "the intern dropped the tables") {
		assert.Equal(t, tool.CodeUnauthorized, refused(t, res).Error.Code)
	}
	assert.Zero(t, dropped.Load())
}

// A rule's ceiling judged a tool by its Risk alone. A tool marked
// destructive (tool.Annotations.Destructive: it may delete or overwrite)
// whose author set no risk is judged medium, and one set low stays low: an
// intern allowed tools "up to medium risk" dropped the tables. The
// approval extension judges such a tool dangerous whatever its risk
// (approval.Assess); the rule's ceiling now judges it high, as
// tool.RiskHigh says destructive tools are. Read-only tools are not
// destructive, whatever their hint says.
func TestAttackS20DestructiveToolPassesAMediumCeiling(t *testing.T) {
	var dropped atomic.Int64
	drop := func(context.Context, struct{}) (string, error) {
		dropped.Add(1)
		return "dropped", nil
	}
	reg := registry.New()
	reg.MustRegister(
		tool.Func("drop_tables", "Drop every table", drop,
			tool.WithAnnotations(tool.Annotations{Destructive: true})),
		tool.Func("purge_cache", "Purge the cache", drop, tool.WithRisk(tool.RiskLow),
			tool.WithAnnotations(tool.Annotations{Destructive: true})),
		tool.Func("list_tables", "List the tables", drop, tool.ReadOnly(), tool.WithRisk(tool.RiskLow),
			tool.WithAnnotations(tool.Annotations{ReadOnly: true, Destructive: true})),
	)
	a := auth.New(auth.WithRules(
		auth.Rule{Name: "interns-up-to-medium", Role: "intern", MaxRisk: auth.Ceiling(tool.RiskMedium)},
		auth.Rule{Name: "helpers-low", Role: "helper", MaxRisk: auth.Ceiling(tool.RiskLow)},
		auth.Rule{Role: "dba"},
	))
	ex := executor.MustNew(reg, executor.WithExtensions(a))
	run := func(name string, roles ...string) *tool.Result {
		res, _ := ex.Execute(context.Background(), call(name, tool.Principal{ID: "u", Roles: roles}))
		return res
	}
	for _, tc := range []struct{ tool, role string }{{"drop_tables", "intern"}, {"purge_cache", "helper"}, {"purge_cache", "intern"}} {
		res := run(tc.tool, tc.role)
		if assert.NotNil(t, res.Error, "%s called %s", tc.role, tc.tool) {
			res = refused(t, res)
			assert.Equal(t, tool.CodeUnauthorized, res.Error.Code)
			assert.Contains(t, res.Error.Message, "destructive")
		}
	}
	assert.Zero(t, dropped.Load(), "a destructive tool ran under a ceiling below high")

	require.True(t, run("drop_tables", "dba").OK(), "a rule without a ceiling still allows it")
	require.True(t, run("list_tables", "helper").OK(), "a read-only tool is judged by its risk")
}
