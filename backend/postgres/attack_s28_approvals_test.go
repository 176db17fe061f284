package postgres_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A person approves a call with its arguments changed, keeping the NUL the
// model put in them ("\u0000"), as the waiter gives up (its client went
// away). Withdraw must take the undelivered approval back: the call did
// not run, and asked again it is a new question. Withdraw read the
// decision's kind with ->>, which PostgreSQL cannot do in a json value
// holding \u0000 or a lone surrogate anywhere: it failed, the approval
// stayed, and the same call asked again later ran on it without anyone
// seeing the new request. A denial stands, whatever its reason holds.
func TestAttackS28AnApprovalHoldingANULIsWithdrawn(t *testing.T) {
	dsn := database(t)
	s := postgres.New(newPool(t, dsn))
	t.Cleanup(s.Close)
	ctx := within(t, time.Minute)

	for i, d := range []approval.Decision{
		approval.Modified("ops", json.RawMessage(`{"path":"a\u0000c"}`)),
		approval.Modified("ops", json.RawMessage(`{"path":"\ud800"}`)),
		{Kind: approval.Approve, DecidedBy: "ops\x00"},
	} {
		req := approval.Request{Call: tool.Call{ID: "w" + string(rune('0'+i)), Name: "write", Args: json.RawMessage(`{"path":"a\u0000b"}`)},
			Principal: tool.Principal{ID: "alice", Tenant: "acme"}}
		p := approval.Pending{ID: approval.RequestID(req), Request: req, Since: time.Now(), Expires: time.Now().Add(time.Minute)}
		require.NoError(t, s.Approvals.Put(ctx, p))
		require.NoError(t, s.Approvals.Decide(ctx, p.ID, d))
		assert.NoError(t, s.Approvals.Withdraw(ctx, p.ID), "%s: the waiter gave up as the approval landed", d.Args)

		// Asked again: pending, for a person to decide.
		p.Since = time.Now()
		require.NoError(t, s.Approvals.Put(ctx, p))
		list, err := s.Approvals.List(ctx)
		require.NoError(t, err)
		require.Len(t, list, 1, "%s: the call asked again is not pending (the approval its waiter gave up is still there)", d.Args)
		require.NoError(t, s.Approvals.Decide(ctx, p.ID, approval.Approved("carol")))
		got, err := s.Approvals.Await(ctx, p.ID)
		require.NoError(t, err)
		assert.Equal(t, "carol", got.DecidedBy, "%s: the call ran on the approval given before", d.Args)
	}

	req := approval.Request{Call: tool.Call{ID: "deny", Name: "write", Args: json.RawMessage(`{}`)}, Principal: tool.Principal{ID: "alice", Tenant: "acme"}}
	p := approval.Pending{ID: approval.RequestID(req), Request: req, Since: time.Now(), Expires: time.Now().Add(time.Minute)}
	require.NoError(t, s.Approvals.Put(ctx, p))
	require.NoError(t, s.Approvals.Decide(ctx, p.ID, approval.Denied("ops", "no \x00 way")))
	require.NoError(t, s.Approvals.Withdraw(ctx, p.ID))
	d, err := s.Approvals.Await(context.WithoutCancel(ctx), p.ID)
	require.NoError(t, err)
	assert.Equal(t, approval.Deny, d.Kind, "a denial stands")
}
