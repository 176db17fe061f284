package ratelimit_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call whose caller gives up while a person is being asked about it
// keeps its token: the person was asked (a notification, a dashboard
// entry), and a caller that starts and cancels calls in a loop must not
// ask the person more often than the limit allows. The approval extension
// answers such a call as denied (approval_denied, "cancelled while waiting
// for approval"), which the limiter keeps the token for; a token given
// back for it would let the loop go on unlimited.
func TestCancelledApprovalWaitKeepsItsToken(t *testing.T) {
	f := newFixture(t)
	asked := make(chan struct{}, 1)
	gate := approvalgate.New(approval.ApproverFunc(func(ctx context.Context, _ approval.Request) (approval.Decision, error) {
		asked <- struct{}{}
		<-ctx.Done()
		return approval.Decision{}, ctx.Err()
	}))
	lim := ratelimit.New(ratelimit.PerPrincipal("1/hour"))
	ex := executor.MustNew(f.reg, executor.WithExtensions(lim, gate, gate.Guard()))
	c := call("fetch", "bob")
	c.Args = []byte(`{}`)

	// fetch has no risk set: the approval policy asks about it (medium).
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *tool.Result, 1)
	go func() { res, _ := ex.Execute(ctx, c); done <- res }()
	<-asked
	cancel()
	res := <-done
	require.NotNil(t, res.Error)
	require.Equal(t, tool.CodeApprovalDenied, res.Error.Code, "the approval extension answers a cancelled wait as denied")

	_, err := ex.Execute(context.Background(), c)
	assert.ErrorIs(t, err, tool.ErrRateLimited, "the cancelled wait gave its token back: a loop of calls cancelled while asked is not limited")
	select {
	case <-asked:
		t.Error("the person was asked a second time within the hour's one call")
	default:
	}
}
