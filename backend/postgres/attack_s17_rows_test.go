package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A flood of calls that ask for approval (each with up to a megabyte of
// arguments) left a row each in toolbelt_approvals for ever: delivered and
// withdrawn requests, requests whose waiter died, every decision. A
// MemoryStore forgets all but the pending ones and its last
// approval.DefaultDecisionRetention decisions; so does the table now.
func TestAttackS17ApprovalRowsAreBounded(t *testing.T) {
	dsn := database(t)
	ctx := context.Background()
	s := postgres.New(newPool(t, dsn))
	t.Cleanup(s.Close)
	const keep = 5
	postgres.SetDecisionRetention(s.Approvals, keep)
	admin := newPool(t, dsn)

	pending := func(i int, expires time.Time) approval.Pending {
		req := approval.Request{Call: tool.Call{ID: fmt.Sprint("call-", i), Name: "pay", Args: json.RawMessage(`{"amount":1}`)},
			Principal: tool.Principal{ID: "mallory"}}
		return approval.Pending{ID: approval.RequestID(req), Request: req, Since: time.Now(), Expires: expires}
	}
	waiting := pending(-1, time.Time{}) // asked and not yet answered: it stays
	require.NoError(t, s.Approvals.Put(ctx, waiting))
	var lastDenied string
	for i := range 200 {
		expires := time.Now().Add(time.Hour)
		if i%4 == 3 {
			expires = time.Now().Add(-2 * time.Minute) // its waiter died long ago
		}
		p := pending(i, expires)
		require.NoError(t, s.Approvals.Put(ctx, p))
		switch i % 4 {
		case 0: // approved and delivered
			require.NoError(t, s.Approvals.Decide(ctx, p.ID, approval.Approved("bob")))
			_, err := s.Approvals.Await(ctx, p.ID)
			require.NoError(t, err)
		case 1: // its waiter gave up
			require.NoError(t, s.Approvals.Withdraw(ctx, p.ID))
		case 2: // denied: the denial stands while it is kept
			require.NoError(t, s.Approvals.Decide(ctx, p.ID, approval.Denied("bob", "no")))
			lastDenied = p.ID
		}
	}
	require.NoError(t, s.Approvals.Put(ctx, pending(1000, time.Time{})))

	var rows int
	require.NoError(t, admin.QueryRow(ctx, `SELECT count(*) FROM toolbelt_approvals`).Scan(&rows))
	assert.LessOrEqual(t, rows, keep+2+4, "rows left after 200 approvals asked and answered (the pending two, the last %d decisions, and what the last Put left to the next)", keep)

	list, err := s.Approvals.List(ctx)
	require.NoError(t, err)
	var ids []string
	for _, p := range list {
		ids = append(ids, p.ID)
	}
	assert.Contains(t, ids, waiting.ID, "a request still waiting was deleted")
	d, err := s.Approvals.Await(ctx, lastDenied)
	require.NoError(t, err, "the newest denial was deleted")
	assert.Equal(t, approval.Deny, d.Kind)
}
