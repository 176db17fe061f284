package agent_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A turn whose calls share an id ran every call: the results then carry
// one id twice, which the provider refuses on the next request after the
// payments were made, and the audit trail, history and approvals see one
// call id for two calls. The turn is refused; nothing runs. (An id the
// loop fills in is new in the conversation, a model's of the turn too:
// TestFilledInCallIDsAreNewInTheConversation.)
func TestDuplicateCallIDsRunNothing(t *testing.T) {
	for _, calls := range [][]tool.Call{
		{{ID: "c1", Name: "pay", Args: []byte(`{}`)}, {ID: "c1", Name: "pay", Args: []byte(`{}`)}},
	} {
		var paid atomic.Int32
		reg := registry.New()
		reg.MustRegister(tool.Func("pay", "Pay", func(context.Context, struct{}) (string, error) {
			paid.Add(1)
			return "paid", nil
		}))
		m := agent.ModelFunc(func(context.Context, []agent.Message, []tool.Spec) (agent.Message, error) {
			return agent.Message{Calls: calls}, nil
		})
		tr, err := agent.Run(context.Background(), m, []agent.Message{{Role: agent.RoleUser, Text: "pay"}},
			agent.Options{Executor: executor.MustNew(reg), Tools: []string{"pay"}, MaxIterations: 1})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "same id")
		assert.Equal(t, agent.StopModelError, tr.Stop)
		assert.Zero(t, paid.Load(), "no call of the turn runs")
		assert.Empty(t, tr.Steps)
	}
}
