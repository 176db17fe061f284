package approval

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// A decision stands for the call a person was shown, and the person was
// shown whom it acts for: the principal's roles too, as extension/
// approvalgate's binding and its session memory have it. The same call id,
// tool and arguments from alice with other roles (more of them, or none)
// found the decision made for alice the developer and ran on it.
func TestAttackS15ADecisionIsNotTakenForOtherRoles(t *testing.T) {
	q := NewQueue(QueueTimeout(time.Minute))
	ctx := context.Background()
	req := Request{Call: tool.Call{ID: "call_0", Name: "deploy", Args: json.RawMessage(`{"env":"prod"}`)},
		Principal: tool.Principal{ID: "alice", Tenant: "acme", Roles: []string{"dev"}}}
	// The decision is made and not yet delivered (its waiter died: an
	// approval delivered is spent, and found by no one).
	require.NoError(t, q.Store().Put(ctx, Pending{ID: RequestID(req), Request: req, Since: time.Now(), Expires: time.Now().Add(time.Minute)}))
	require.NoError(t, q.Resolve(q.Pending()[0].ID, Approved("ops")))

	for name, roles := range map[string][]string{
		"more roles":    {"dev", "admin"},
		"other roles":   {"admin"},
		"no roles":      nil,
		"spliced roles": {"d", "ev"},
		"joined roles":  {"dev,admin"},
	} {
		other := req
		other.Principal.Roles = roles
		assert.NotEqual(t, RequestID(req), RequestID(other), name)
		short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		_, err := q.Approve(short, other)
		cancel()
		assert.ErrorIs(t, err, context.DeadlineExceeded, "%s: alice with %q waits for her own decision", name, roles)
	}
	// The same roles are the same question: a job retried finds its decision.
	again := req
	again.Principal.Roles = []string{"dev"}
	d, err := q.Approve(ctx, again)
	require.NoError(t, err)
	assert.Equal(t, Approve, d.Kind)
}
