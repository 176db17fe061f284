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

// A worker killed while its call waited leaves the request pending in the
// database until it expires. The job run again after that must ask again;
// it timed out at once on the dead request's expiry, forever.
func TestAnExpiredRequestIsAskedAgain(t *testing.T) {
	dsn := database(t)
	s := postgres.New(newPool(t, dsn))
	defer s.Close()
	ctx := context.Background()
	req := approval.Request{Call: tool.Call{ID: "job-9", Name: "deploy", Args: json.RawMessage(`{}`)}}
	past := time.Now().Add(-time.Hour)
	require.NoError(t, s.Approvals.Put(ctx, approval.Pending{ID: approval.RequestID(req), Request: req, Since: past, Expires: past.Add(time.Minute)}))

	q := approval.NewQueue(approval.QueueStore(s.Approvals), approval.QueueTimeout(time.Minute))
	type result struct {
		d   approval.Decision
		err error
	}
	done := make(chan result, 1)
	go func() { d, err := q.Approve(ctx, req); done <- result{d, err} }()
	require.Eventually(t, func() bool { return q.Len() == 1 }, 10*time.Second, 5*time.Millisecond, "asked again")
	require.NoError(t, q.Resolve(approval.RequestID(req), approval.Approved("ops")))
	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, "ops", r.d.DecidedBy)
}
