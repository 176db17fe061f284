package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type AddArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

type Sum struct {
	Sum int `json:"sum"`
}

func newExec(exts ...extension.Extension) *executor.Executor {
	reg := registry.New()
	reg.MustRegister(
		tool.Func("add", "Add two integers", func(_ context.Context, in AddArgs) (Sum, error) { return Sum{in.A + in.B}, nil }),
		tool.Func("rm_rf", "Delete everything", func(context.Context, struct{}) (string, error) { return "deleted", nil }, tool.WithRisk(tool.RiskHigh)),
		tool.Func("write_note", "Write a note", func(context.Context, struct {
			Text string `json:"text"`
		}) (string, error) {
			return "written", nil
		}, tool.WithApproval()),
	)
	return executor.MustNew(reg, executor.WithExtensions(exts...))
}

// script is a model that plays back turns; each turn sees the conversation.
type script struct {
	turns []func(conv []agent.Message, tools []tool.Spec) agent.Message
	seen  [][]agent.Message
	tools [][]string
}

func (s *script) Next(_ context.Context, conv []agent.Message, tools []tool.Spec) (agent.Message, error) {
	s.seen = append(s.seen, conv)
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	s.tools = append(s.tools, names)
	i := len(s.seen) - 1
	if i >= len(s.turns) {
		return agent.Message{}, errors.New("script ran out of turns")
	}
	return s.turns[i](conv, tools), nil
}

func call(name, args string) tool.Call {
	return tool.Call{Name: name, Args: json.RawMessage(args)}
}

func lastResults(conv []agent.Message) []*tool.Result {
	return conv[len(conv)-1].Results
}

func TestRunStopsWhenModelAnswers(t *testing.T) {
	m := &script{turns: []func([]agent.Message, []tool.Spec) agent.Message{
		func([]agent.Message, []tool.Spec) agent.Message {
			return agent.Message{Calls: []tool.Call{call("add", `{"a":2,"b":3}`), call("add", `{"a":10,"b":1}`)}}
		},
		func(conv []agent.Message, _ []tool.Spec) agent.Message {
			rs := lastResults(conv)
			return agent.Message{Text: fmt.Sprintf("%s and %s", rs[0].Output, rs[1].Output)}
		},
	}}
	tr, err := agent.Run(context.Background(), m, []agent.Message{{Role: agent.RoleUser, Text: "add"}},
		agent.Options{Executor: newExec(), Tools: []string{"add"}, Agent: "a1", Session: "s1"})
	require.NoError(t, err)
	assert.Equal(t, agent.StopAnswered, tr.Stop)
	assert.Equal(t, `{"sum":5} and {"sum":11}`, tr.Final)
	assert.Equal(t, 2, tr.Iterations)
	require.Len(t, tr.Steps, 1)
	assert.Regexp(t, `^call_1_0_[0-9a-f]{8}$`, tr.Steps[0].Calls[0].ID, "missing ids are filled")
	assert.Regexp(t, `^call_1_1_[0-9a-f]{8}$`, tr.Steps[0].Calls[1].ID)
	assert.Equal(t, "a1", tr.Steps[0].Calls[0].Agent)
	assert.Equal(t, "s1", tr.Steps[0].Calls[1].Session)
	assert.Equal(t, []string{"add"}, m.tools[0], "only declared tools are offered")
	assert.Len(t, tr.Messages, 4) // user, assistant calls, tool results, assistant answer
}

func TestUndeclaredToolGetsNotFound(t *testing.T) {
	m := &script{turns: []func([]agent.Message, []tool.Spec) agent.Message{
		func([]agent.Message, []tool.Spec) agent.Message {
			return agent.Message{Calls: []tool.Call{call("rm_rf", `{}`), call("add", `{"a":1,"b":1}`)}}
		},
		func(conv []agent.Message, _ []tool.Spec) agent.Message {
			return agent.Message{Text: lastResults(conv)[0].Error.Message}
		},
	}}
	tr, err := agent.Run(context.Background(), m, nil, agent.Options{Executor: newExec(), Tools: []string{"add"}})
	require.NoError(t, err)
	res := tr.Steps[0].Results[0]
	assert.Equal(t, tool.CodeNotFound, res.Error.Code, "registered but undeclared: not run")
	assert.Contains(t, tr.Final, `tool "rm_rf" is not available to this agent: use one of add`)
	assert.True(t, tr.Steps[0].Results[1].OK(), "the declared call in the same turn still runs")
}

func TestRepeatedFailingCallStoppedByIterationLimit(t *testing.T) {
	var turns []func([]agent.Message, []tool.Spec) agent.Message
	for i := 0; i < 20; i++ {
		turns = append(turns, func([]agent.Message, []tool.Spec) agent.Message {
			return agent.Message{Calls: []tool.Call{call("add", `{"a":"one"}`)}}
		})
	}
	m := &script{turns: turns}
	tr, err := agent.Run(context.Background(), m, nil, agent.Options{Executor: newExec(), Tools: []string{"add"}, MaxIterations: 4})
	require.Error(t, err)
	assert.ErrorIs(t, err, agent.ErrMaxIterations)
	assert.Contains(t, err.Error(), `after 4 turns (last: add({"a":"one"}))`)
	assert.Equal(t, agent.StopMaxIterations, tr.Stop)
	assert.Len(t, tr.Steps, 4)
	assert.Len(t, m.seen, 4)
	for _, s := range tr.Steps {
		assert.Equal(t, tool.CodeInvalidArguments, s.Results[0].Error.Code)
	}
}

func TestDefaultIterationLimit(t *testing.T) {
	m := agent.ModelFunc(func(context.Context, []agent.Message, []tool.Spec) (agent.Message, error) {
		return agent.Message{Calls: []tool.Call{call("add", `{"a":1,"b":2}`)}}, nil
	})
	tr, err := agent.Run(context.Background(), m, nil, agent.Options{Executor: newExec(), AllTools: true})
	assert.ErrorIs(t, err, agent.ErrMaxIterations)
	assert.Equal(t, agent.DefaultMaxIterations, tr.Iterations)
}

func TestApprovalDenialIsFedBack(t *testing.T) {
	deny := extension.Hooks{ExtName: "approval", Prio: extension.PriorityApproval, Before: func(_ context.Context, req *extension.Request) *tool.Result {
		if req.Spec.RequiresApproval {
			r := tool.Fail(&req.Call, tool.CodeApprovalDenied, "the user said no: notes are read-only today")
			r.SetMeta("approval", map[string]any{"decision": "deny", "decided_by": "alice"})
			return r
		}
		return nil
	}}
	m := &script{turns: []func([]agent.Message, []tool.Spec) agent.Message{
		func([]agent.Message, []tool.Spec) agent.Message {
			return agent.Message{Calls: []tool.Call{call("write_note", `{"text":"hi"}`)}}
		},
		func(conv []agent.Message, _ []tool.Spec) agent.Message {
			r := lastResults(conv)[0]
			if r.Error != nil && r.Error.Code == tool.CodeApprovalDenied {
				return agent.Message{Text: "I was not allowed to write the note: " + r.Error.Message}
			}
			return agent.Message{Text: "wrote it"}
		},
	}}
	tr, err := agent.Run(context.Background(), m, nil, agent.Options{Executor: newExec(deny), Tools: []string{"write_note"}})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(tr.Final, "I was not allowed"), tr.Final)
	require.Len(t, tr.Steps[0].Decisions, 1)
	assert.Equal(t, agent.Decision{CallID: tr.Steps[0].Calls[0].ID, Tool: "write_note", Decision: "deny", DecidedBy: "alice"}, tr.Steps[0].Decisions[0])
}

func TestContextEndsTheRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := agent.ModelFunc(func(context.Context, []agent.Message, []tool.Spec) (agent.Message, error) {
		cancel()
		return agent.Message{Calls: []tool.Call{call("add", `{"a":1,"b":2}`)}}, nil
	})
	tr, err := agent.Run(ctx, m, nil, agent.Options{Executor: newExec(), Tools: []string{"add"}})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, agent.StopContext, tr.Stop)
	assert.Equal(t, 1, tr.Iterations)
}

func TestModelErrorAndBadOptions(t *testing.T) {
	boom := agent.ModelFunc(func(context.Context, []agent.Message, []tool.Spec) (agent.Message, error) {
		return agent.Message{}, errors.New("provider 500")
	})
	tr, err := agent.Run(context.Background(), boom, nil, agent.Options{Executor: newExec(), Tools: []string{"add"}})
	assert.ErrorContains(t, err, "model turn 1: provider 500")
	assert.Equal(t, agent.StopModelError, tr.Stop)

	_, err = agent.Run(context.Background(), boom, nil, agent.Options{Tools: []string{"add"}})
	assert.ErrorContains(t, err, "Executor is nil")
	_, err = agent.Run(context.Background(), boom, nil, agent.Options{Executor: newExec()})
	assert.ErrorContains(t, err, "no tools declared")
	_, err = agent.Run(context.Background(), nil, nil, agent.Options{Executor: newExec(), AllTools: true})
	assert.ErrorContains(t, err, "no model")
}

// The provider's own payload of an assistant turn (thinking blocks with
// signatures, thought signatures, unknown items) reaches the next model turn
// unchanged, so an adapter can send it back as it came (issue 19).
func TestRunKeepsRawTurn(t *testing.T) {
	raw := json.RawMessage(`[{"type":"thinking","thinking":"add them","signature":"c2ln"},{"type":"tool_use","id":"tu1","name":"add","input":{"a":1,"b":2}}]`)
	m := &script{turns: []func([]agent.Message, []tool.Spec) agent.Message{
		func([]agent.Message, []tool.Spec) agent.Message {
			return agent.Message{Calls: []tool.Call{{ID: "tu1", Name: "add", Args: json.RawMessage(`{"a":1,"b":2}`)}}, Raw: raw, RawFormat: "anthropic"}
		},
		func([]agent.Message, []tool.Spec) agent.Message { return agent.Message{Text: "3"} },
	}}
	_, err := agent.Run(context.Background(), m, nil, agent.Options{Executor: newExec(), Tools: []string{"add"}})
	require.NoError(t, err)
	turn := m.seen[1][0]
	assert.Equal(t, string(raw), string(turn.Raw))
	assert.Equal(t, "anthropic", turn.RawFormat)
}

type namedModel struct{ agent.ModelFunc }

func (namedModel) Provider() string { return "anthropic" }

// Calls carry the provider of the model that asked for them, for views
// that group live calls by provider.
func TestRunStampsTheProvider(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("ping", "Ping", func(context.Context, struct{}) (string, error) { return "pong", nil }))
	ex := executor.MustNew(reg)
	turn := 0
	m := namedModel{func(context.Context, []agent.Message, []tool.Spec) (agent.Message, error) {
		turn++
		if turn == 1 {
			return agent.Message{Role: agent.RoleAssistant, Calls: []tool.Call{{Name: "ping"}}}, nil
		}
		return agent.Message{Role: agent.RoleAssistant, Text: "done"}, nil
	}}
	tr, err := agent.Run(context.Background(), m, []agent.Message{{Role: agent.RoleUser, Text: "ping"}}, agent.Options{Executor: ex, Tools: []string{"ping"}})
	require.NoError(t, err)
	require.NotEmpty(t, tr.Steps)
	assert.Equal(t, "anthropic", tr.Steps[0].Calls[0].Provider)
	turn = 0
	tr, err = agent.Run(context.Background(), m, []agent.Message{{Role: agent.RoleUser, Text: "ping"}}, agent.Options{Executor: ex, Tools: []string{"ping"}, Provider: "ollama"})
	require.NoError(t, err)
	require.NotEmpty(t, tr.Steps)
	assert.Equal(t, "ollama", tr.Steps[0].Calls[0].Provider, "Options.Provider wins over the model's own name")
}
