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

// A waiter takes the decision it read. Await reads the row, then takes
// the decision with an update conditioned on the row still holding it; the
// condition was decided_at alone. Between the read and the update, another
// waiter was given the approval, the call was asked again and a person
// decided the new request (Carol ran it with other arguments) at the same
// decided_at (a database clock that repeats a microsecond: a step back, a
// failover to a server behind): the slow waiter's update took Carol's
// decision, and it returned Bob's, which had already been delivered. Bob's
// approval ran twice and Carol's modification never ran.
func TestAttackAWaiterTakesOnlyTheDecisionItRead(t *testing.T) {
	dsn := database(t)
	ctx := context.Background()
	s := postgres.New(newPool(t, dsn))
	t.Cleanup(s.Close)
	admin := newPool(t, dsn)

	req := approval.Request{Call: tool.Call{ID: "pay#0", Name: "pay", Session: "s1", Args: json.RawMessage(`{"amount":100}`)},
		Principal: tool.Principal{ID: "alice", Tenant: "acme"}}
	p := approval.Pending{ID: approval.RequestID(req), Request: req, Since: time.Now(), Expires: time.Now().Add(time.Minute)}
	require.NoError(t, s.Approvals.Put(ctx, p))
	require.NoError(t, s.Approvals.Decide(ctx, p.ID, approval.Approved("bob")))

	// Hold the row, so that the waiter reads it and then waits at its update.
	tx, err := admin.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	var decidedAt time.Time
	require.NoError(t, tx.QueryRow(ctx, `SELECT decided_at FROM toolbelt_approvals WHERE id = $1 FOR UPDATE`, p.ID).Scan(&decidedAt))

	type result struct {
		d   approval.Decision
		err error
	}
	slow := make(chan result, 1)
	go func() {
		d, err := s.Approvals.Await(ctx, p.ID)
		slow <- result{d, err}
	}()
	// Polled: only the server knows its backend waits on our row lock, and
	// says so nowhere but pg_stat_activity.
	require.Eventually(t, func() bool {
		var n int
		err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE toolbelt_approvals%'`).Scan(&n)
		return err == nil && n == 1
	}, 30*time.Second, 5*time.Millisecond, "the waiter reached its update")

	// Meanwhile: Bob's approval delivered to another waiter, the call asked
	// again, and Carol's modification of the new request, at the same
	// decided_at.
	carol := approval.Modified("carol", json.RawMessage(`{"amount":10}`))
	b, err := json.Marshal(carol)
	require.NoError(t, err)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE toolbelt_approvals SET state = 'withdrawn' WHERE id = $1`, []any{p.ID}},
		{`UPDATE toolbelt_approvals SET state = 'pending', decision = NULL, decided_at = NULL, since = clock_timestamp() WHERE id = $1`, []any{p.ID}},
		{`UPDATE toolbelt_approvals SET state = 'decided', decision = $2, decided_at = $3 WHERE id = $1`, []any{p.ID, b, decidedAt}},
	} {
		_, err := tx.Exec(ctx, q.sql, q.args...)
		require.NoError(t, err)
	}
	require.NoError(t, tx.Commit(ctx))

	var r result
	select {
	case r = <-slow:
	case <-time.After(30 * time.Second):
		t.Fatal("the waiter did not return")
	}
	if r.err == nil {
		assert.Equal(t, "carol", r.d.DecidedBy, "the waiter returned bob's decision, delivered before, and took carol's: %+v", r.d)
	}
	// Carol's modification is delivered once, to whoever takes it: the
	// slow waiter above, or the new request's waiter.
	d, err := s.Approvals.Await(ctx, p.ID)
	if r.err == nil && r.d.DecidedBy == "carol" {
		require.ErrorIs(t, err, approval.ErrNotPending)
		return
	}
	require.NoError(t, err, "carol's modification was spent by a waiter that returned another decision")
	assert.Equal(t, approval.Modify, d.Kind)
	assert.Equal(t, "carol", d.DecidedBy)
}
