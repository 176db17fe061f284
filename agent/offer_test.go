package agent_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// With Offer set to a policy's Allows, each turn shows the model only the
// tools the current mode lets run: after a switch to lockdown, write_note
// is gone from the next turn. A call the model makes to it anyway is
// refused as not offered (policy_denied), not reported as an unknown tool
// (TestAttackS17ToolHiddenByOfferDoesNotRun).
func TestOfferShowsOnlyWhatTheModeAllows(t *testing.T) {
	p, err := policy.Parse([]byte("tools:\n  write_note: {forbidden_in_modes: [lockdown]}\n"))
	require.NoError(t, err)
	m := &script{turns: []func([]agent.Message, []tool.Spec) agent.Message{
		func([]agent.Message, []tool.Spec) agent.Message {
			require.NoError(t, p.SetMode(tool.ModeLockdown)) // the operator, meanwhile
			return agent.Message{Calls: []tool.Call{call("add", `{"a":1,"b":2}`)}}
		},
		func([]agent.Message, []tool.Spec) agent.Message {
			return agent.Message{Calls: []tool.Call{call("write_note", `{"text":"hi"}`)}}
		},
		func([]agent.Message, []tool.Spec) agent.Message { return agent.Message{Text: "done"} },
	}}
	tr, err := agent.Run(context.Background(), m, nil, agent.Options{
		Executor: newExec(p), Tools: []string{"add", "write_note"}, Offer: p.Allows,
	})
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"add", "write_note"}, {"add"}, {"add"}}, m.tools)
	res := tr.Steps[1].Results[0]
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
}
