package auth_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The cache answers a call from what it kept, without running the rest of
// the chain. By default it runs inside auth (PriorityCache > PriorityAuth),
// but extension.WithPriority places it anywhere, and nothing said that a
// cache placed outside auth (to count hits in a metrics extension, say)
// answers before anyone is authorised: with a cache shared across
// principals, bob, who may not call payroll_report, was served the report
// alice's call had cached. executor.New now refuses a cache outside auth,
// naming the priorities.
func TestAttackS28CacheOutsideAuthAnswersTheUnauthorised(t *testing.T) {
	var runs atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.Func("payroll_report", "This month's payroll", func(context.Context, struct{}) (string, error) {
		runs.Add(1)
		return "salaries: ...", nil
	}, tool.ReadOnly()))
	a := auth.New(auth.Allow("hr", "payroll_report"))
	c := cache.New(cache.SharedAcrossPrincipals())

	for _, tc := range []struct {
		name string
		ext  extension.Extension
	}{
		{"before auth", extension.WithPriority(c, extension.PriorityAudit+50)},
		{"at auth's priority, given first", extension.WithPriority(c, extension.PriorityAuth)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := executor.New(reg, executor.WithExtensions(tc.ext, a))
			if err == nil {
				report := tool.Call{ID: "c1", Name: "payroll_report", Args: json.RawMessage(`{}`)}
				report.Principal = tool.Principal{ID: "alice", Roles: []string{"hr"}}
				res, _ := ex.Execute(context.Background(), report)
				require.True(t, res.OK(), "%v", res.Error)
				report.Principal = tool.Principal{ID: "bob", Roles: []string{"dev"}}
				res, _ = ex.Execute(context.Background(), report)
				assert.False(t, res.OK(), "bob, who may not call payroll_report, was served it from the cache: %q", res.Text())
			}
			require.Error(t, err, "a cache outside auth was taken")
			assert.Contains(t, err.Error(), `extension "cache" runs outside auth`)
			assert.Contains(t, err.Error(), "extension.WithPriority")
		})
	}

	// An extension of another name at the cache's old place is none of auth's business.
	_, err := executor.New(reg, executor.WithExtensions(a, extension.Func("counter", extension.PriorityAudit+50,
		func(next extension.Handler) extension.Handler { return next })))
	require.NoError(t, err)

	// In its place (and inside auth), the cache serves only those auth lets through.
	ex, err := executor.New(reg, executor.WithExtensions(c, a))
	require.NoError(t, err)
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c2", Name: "payroll_report", Args: json.RawMessage(`{}`),
		Principal: tool.Principal{ID: "bob", Roles: []string{"dev"}}})
	assert.Equal(t, tool.CodeUnauthorized, refused(t, res).Error.Code)
}

// The approval extension runs after auth "so nobody is asked about a call
// that would be refused anyway" (docs/extensions.md), but
// extension.WithPriority placed it outside auth without a word: bob, whom
// the rules refuse delete_repo, had an approver asked about each of his
// calls (an unauthorised caller could keep approvers deciding, and
// approving, calls that never run: approval fatigue to spend on the calls
// that do). executor.New now refuses an approval extension outside auth.
func TestAttackS28ApprovalOutsideAuthAsksAboutRefusedCalls(t *testing.T) {
	var runs, asked atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.Func("delete_repo", "Delete a repository", func(context.Context, struct{}) (string, error) {
		runs.Add(1)
		return "deleted", nil
	}, tool.WithRisk(tool.RiskHigh), tool.WithApproval()))
	gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		asked.Add(1)
		return approval.Approved("ann"), nil
	}))
	a := auth.New(auth.Allow("admin", "delete_repo"))

	ex, err := executor.New(reg, executor.WithExtensions(extension.WithPriority(gate, extension.PriorityAudit+50), gate.Guard(), a))
	if err == nil {
		for range 3 {
			res, _ := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "delete_repo", Args: json.RawMessage(`{}`),
				Principal: tool.Principal{ID: "bob", Roles: []string{"dev"}}})
			assert.Equal(t, tool.CodeUnauthorized, res.Error.Code)
		}
		assert.Zero(t, asked.Load(), "an approver was asked about calls auth refuses")
	}
	require.Error(t, err, "an approval extension outside auth was taken")
	assert.Contains(t, err.Error(), `extension "approval" runs outside auth`)
	assert.Zero(t, runs.Load())

	// In its place, bob's calls are refused unasked, and alice is asked.
	ex, err = executor.New(reg, executor.WithExtensions(gate, gate.Guard(), a))
	require.NoError(t, err)
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c2", Name: "delete_repo", Args: json.RawMessage(`{}`),
		Principal: tool.Principal{ID: "bob", Roles: []string{"dev"}}})
	assert.Equal(t, tool.CodeUnauthorized, refused(t, res).Error.Code)
	assert.Zero(t, asked.Load())
	res, _ = ex.Execute(context.Background(), tool.Call{ID: "c3", Name: "delete_repo", Args: json.RawMessage(`{}`),
		Principal: tool.Principal{ID: "alice", Roles: []string{"admin"}}})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, int64(1), asked.Load())
}
