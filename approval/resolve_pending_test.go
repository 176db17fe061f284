package approval_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/tool"
)

// storeOnly hides every method of a store but approval.Store's.
type storeOnly struct{ approval.Store }

// A reviewer holding the request Next handed it decides that request, not
// the same call asked again after another reviewer's approval of it ran;
// with a store that cannot decide one request atomically too.
func TestResolvePendingDecidesTheRequestHandedOut(t *testing.T) {
	for name, store := range map[string]approval.Store{
		"request decider": approval.NewMemoryStore(),
		"store only":      storeOnly{approval.NewMemoryStore()},
	} {
		t.Run(name, func(t *testing.T) {
			q := approval.NewQueue(approval.QueueStore(store), approval.QueueTimeout(time.Minute))
			req := approval.Request{Call: tool.Call{ID: "pay#0", Name: "pay", Args: json.RawMessage(`{"amount":100}`), Session: "s1"},
				Principal: tool.Principal{ID: "alice", Tenant: "acme"}}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			type outcome struct {
				d   approval.Decision
				err error
			}
			approve := func() <-chan outcome {
				out := make(chan outcome, 1)
				go func() {
					d, err := q.Approve(ctx, req)
					out <- outcome{d, err}
				}()
				return out
			}
			firstRun := approve()
			first, err := q.Next(ctx) // handed to both reviewers' screens
			require.NoError(t, err)
			require.NoError(t, q.ResolvePending(ctx, first, approval.Approved("bob")))
			o := <-firstRun
			require.NoError(t, o.err)
			require.Equal(t, approval.Approve, o.d.Kind)

			secondRun := approve()
			second, err := q.Next(ctx)
			require.NoError(t, err)
			require.Equal(t, first.ID, second.ID, "the same call asked again has the same id")
			require.False(t, first.Since.Equal(second.Since))

			err = q.ResolvePending(ctx, first, approval.Approved("carol"))
			require.ErrorIs(t, err, approval.ErrNotPending, "carol's approval of the first request decided the call asked again")
			assert.Len(t, q.Pending(), 1)
			require.NoError(t, q.ResolvePending(ctx, second, approval.Denied("carol", "paid already")))
			o = <-secondRun
			require.NoError(t, o.err)
			assert.Equal(t, approval.Deny, o.d.Kind)

			require.Error(t, q.ResolvePending(ctx, second, approval.Decision{}), "a malformed decision is refused")
		})
	}
}
