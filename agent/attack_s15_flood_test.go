package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The error of a turn whose calls share an id quoted both calls' tool
// names and the id whole, as the model wrote them: two calls with an id
// (or a name) of 4 MB made an error of 8 MB or more, logged as it is, as
// the MaxIterations error's arguments did before it was bounded
// (TestHostileModelArgumentsDoNotFloodTheError). It quotes a bounded part.
func TestAttackS15DuplicateIDErrorIsBounded(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("pay", "Pay", func(context.Context, struct{}) (string, error) { return "paid", nil }))
	huge := strings.Repeat("A", 4<<20)
	for name, calls := range map[string][]tool.Call{
		"id":   {{ID: huge, Name: "pay"}, {ID: huge, Name: "pay"}},
		"name": {{ID: "c1", Name: huge}, {ID: "c1", Name: huge}},
	} {
		m := agent.ModelFunc(func(context.Context, []agent.Message, []tool.Spec) (agent.Message, error) {
			return agent.Message{Calls: calls}, nil
		})
		tr, err := agent.Run(context.Background(), m, []agent.Message{{Role: agent.RoleUser, Text: "pay"}},
			agent.Options{Executor: executor.MustNew(reg), Tools: []string{"pay"}})
		require.Error(t, err, name)
		assert.Equal(t, agent.StopModelError, tr.Stop, name)
		assert.Contains(t, err.Error(), "same id", name)
		assert.Less(t, len(err.Error()), 4<<10, "%s: the error stays short", name)
	}
}
