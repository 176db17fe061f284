package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A model's arguments that are not JSON, or JSON of another type than
// the object the tool's schema asks for, run nothing: each gets
// invalid_arguments for the model to correct, none reaches the tool as
// zero values (a null or an array decoded into the struct as nothing).
// Guard test: it passed on the code as it was.
func TestAttackS30ArgumentsOfTheWrongShapeRunNothing(t *testing.T) {
	shapes := []string{`null`, `[]`, `[1,2]`, `"{\"a\":1,\"b\":2}"`, `1`, `true`, `{"a":"1","b":2}`, `{"a":1}`, `{"a":1,"b":2`, `{"a":1,"b":2}{}`, "\x00", ``}
	var calls []tool.Call
	for _, s := range shapes {
		calls = append(calls, tool.Call{Name: "add", Args: json.RawMessage(s)})
	}
	tr, err := agent.Run(context.Background(), &script{turns: turns(agent.Message{Calls: calls}, agent.Message{Text: "done"})}, nil,
		agent.Options{Executor: newExec(), Tools: []string{"add"}})
	require.NoError(t, err)
	require.Len(t, tr.Steps, 1)
	for i, r := range tr.Steps[0].Results {
		if assert.NotNil(t, r.Error, "args %q ran: %s", shapes[i], r.Output) {
			assert.Equal(t, tool.CodeInvalidArguments, r.Error.Code, "args %q", shapes[i])
		}
	}
}
