package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The errors Run returns quote a model's tool names (two calls with one
// id; the last calls at MaxIterations) and are meant to be a line to
// log. A name is the model's text: one holding a line break wrote a
// line of the model's choosing into a log that writes the error as it
// is (log.Printf, a plain-text file), such as a forged record saying an
// admin approved the transfer. The names are quoted, as the not_found
// result quotes them.
func TestAttackS30ModelTextCannotBreakTheErrorLine(t *testing.T) {
	forged := "add\ntime=2026-11-29T16:00:00Z level=INFO msg=\"transfer approved\" by=admin\r"
	t.Run("same id", func(t *testing.T) {
		twice := agent.Message{Calls: []tool.Call{
			{ID: "c1", Name: forged, Args: json.RawMessage(`{}`)},
			{ID: "c1", Name: forged, Args: json.RawMessage(`{}`)},
		}}
		_, err := agent.Run(context.Background(), &script{turns: turns(twice)}, nil, agent.Options{Executor: newExec(), Tools: []string{"add"}})
		require.Error(t, err)
		assert.False(t, strings.ContainsAny(err.Error(), "\r\n"), "the error is more than a line: %q", err.Error())
		assert.Contains(t, err.Error(), `add\ntime=`, "the name is quoted")
	})
	t.Run("max iterations", func(t *testing.T) {
		again := agent.Message{Calls: []tool.Call{{Name: forged, Args: json.RawMessage(`{}`)}}}
		_, err := agent.Run(context.Background(), &script{turns: turns(again, again)}, nil,
			agent.Options{Executor: newExec(), Tools: []string{"add"}, MaxIterations: 2})
		require.ErrorIs(t, err, agent.ErrMaxIterations)
		assert.False(t, strings.ContainsAny(err.Error(), "\r\n"), "the error is more than a line: %q", err.Error())
		assert.Contains(t, err.Error(), `add\ntime=`, "the name is quoted")
	})
	t.Run("max iterations, blanks and separators in the arguments", func(t *testing.T) {
		args := json.RawMessage("{\"a\":1,\n\"2026-11-29 INFO transfer approved by admin\":2,\"b\":\"x\u2028y\"}")
		again := agent.Message{Calls: []tool.Call{{Name: "add", Args: args}}}
		_, err := agent.Run(context.Background(), &script{turns: turns(again, again)}, nil,
			agent.Options{Executor: newExec(), Tools: []string{"add"}, MaxIterations: 2})
		require.ErrorIs(t, err, agent.ErrMaxIterations)
		assert.False(t, strings.ContainsAny(err.Error(), "\r\n\u2028"), "the error is more than a line: %q", err.Error())
		assert.Contains(t, err.Error(), `transfer approved`, "the arguments are shown")
	})
}
