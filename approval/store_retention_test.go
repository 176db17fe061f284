package approval_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
)

// A MemoryStore keeps the last DefaultDecisionRetention decisions, entry
// by entry: when an approval delivered long ago leaves the window, the
// same id's later decision, not yet delivered (its waiter died), stays to
// be found once by the job retried; when that one leaves the window too,
// the call is asked again, never answered by an older decision. (Pinned:
// it held on the code of 6b15e9e; evicting by id would fail the first
// check, keeping decisions past the window the second.)
func TestMemoryStoreEvictsDecisionsOneByOne(t *testing.T) {
	ctx := context.Background()
	s := approval.NewMemoryStore()
	put := func(id string) {
		t.Helper()
		require.NoError(t, s.Put(ctx, approval.Pending{ID: id, Since: time.Now(), Expires: time.Now().Add(time.Hour)}))
	}
	others := 0
	decideOthers := func(n int) {
		t.Helper()
		for range n {
			id := fmt.Sprint("apr-other-", others)
			others++
			put(id)
			require.NoError(t, s.Decide(ctx, id, approval.Denied("bob", "no")))
		}
	}
	const id = "apr-pay"
	put(id)
	require.NoError(t, s.Decide(ctx, id, approval.Approved("bob")))
	d, err := s.Await(ctx, id)
	require.NoError(t, err)
	require.Equal(t, "bob", d.DecidedBy)
	// Asked again: carol approves, and its waiter dies before Await returns.
	put(id)
	require.NoError(t, s.Decide(ctx, id, approval.Approved("carol")))

	// Bob's decision leaves the window; carol's is the next to go.
	decideOthers(approval.DefaultDecisionRetention - 1)
	put(id) // the job retried
	d, err = s.Await(ctx, id)
	require.NoError(t, err, "carol's approval, not yet delivered, went with bob's")
	assert.Equal(t, "carol", d.DecidedBy)

	// Asked again, dana approves, nobody receives it, and it leaves the
	// window: the call is asked again.
	put(id)
	require.NoError(t, s.Decide(ctx, id, approval.Approved("dana")))
	decideOthers(approval.DefaultDecisionRetention)
	put(id)
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	d, err = s.Await(wctx, id)
	require.ErrorIs(t, err, context.DeadlineExceeded, "Await = %+v: a decision past the window answered the call", d)
	list, err := s.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1, "the call is asked again")
	assert.Equal(t, id, list[0].ID)
}
