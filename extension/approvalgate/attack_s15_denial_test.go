package approvalgate_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
)

// A denial remembered for the session holds for the calls the policy
// would let run unasked. approval.ScopeSessionTool covers "this call and
// later calls in the same session to the same tool, whatever their
// arguments", and a person who denied shell for the session after seeing
// "rm x" said: no more shell here. The memory was read only for calls the
// policy asked about, so the model's next shell call that the auto policy
// judges safe ("ls", or a read of any file) ran unasked in that session.
func TestAttackS15SessionDenialHoldsForCallsThePolicyAllows(t *testing.T) {
	t.Run("the tool", func(t *testing.T) {
		var r ran
		ex := newExec(t, &r, approvalgate.New(fixed(approval.Denied("alice", "no shell in this session").WithScope(approval.ScopeSessionTool))))
		res, err := ex.Execute(context.Background(), shellCall("rm x"))
		requireDenied(t, res, err, "no shell in this session")

		res, err = ex.Execute(context.Background(), shellCall("ls"))
		requireDenied(t, res, err, "no shell in this session")
		assert.Empty(t, r.list(), "shell ran in the session it was denied for")

		other := shellCall("ls")
		other.Session = "s2"
		_, err = ex.Execute(context.Background(), other)
		require.NoError(t, err, "another session is not denied")
	})
}
