package policy_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/tool"
)

// End to end: a mode that requires approval makes the approval extension
// ask, with the policy's reason; normal mode does not ask.
func TestModeRequiringApprovalReachesApprover(t *testing.T) {
	f := newFixture(t)
	p := load(t)
	var asked atomic.Int64
	var required atomic.Value
	approver := approval.ApproverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		asked.Add(1)
		required.Store(req.Required)
		return approval.Denied("test", "not now"), nil
	})
	ax := approvalgate.New(approver)
	ex := executor.MustNew(f.reg, executor.WithExtensions(p, ax, ax.Guard()))

	_, err := run(t, ex, "read_file", fileArgs{Path: "/w/agent/a"})
	require.NoError(t, err)
	assert.Zero(t, asked.Load(), "normal mode: no rule asks for approval")

	require.NoError(t, p.SetMode(tool.ModeAlert))
	_, err = run(t, ex, "write_file", fileArgs{Path: "/w/agent/a"})
	require.ErrorIs(t, err, tool.ErrApprovalDenied)
	assert.Equal(t, int64(1), asked.Load())
	assert.Contains(t, required.Load(), "policy rule tools.write_file.requires_approval_in_modes: mode alert requires approval")
	assert.Equal(t, int64(1), f.runs.Load(), "only read_file ran: the denied write did not")
}
