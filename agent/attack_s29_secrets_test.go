package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// pin is a value the tool declares secret (tool.WithSecrets): a name
// that says nothing, so only the declaration masks it.
const pin = "4711-0815-secret"

// secretExec is an executor logging every call with its arguments, as
// logging.WithArgs does, and a tool whose pin argument is secret.
func secretExec(t *testing.T) (*executor.Executor, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.DebugLevel)
	reg := registry.New()
	reg.MustRegister(
		tool.Func("pay", "Pay with the card's pin", func(context.Context, struct {
			To  string `json:"to"`
			Pin string `json:"pin"`
		}) (string, error) {
			return "paid", nil
		}, tool.WithSecrets("pin")),
		tool.Func("status", "Say the account's status", func(context.Context, struct{}) (string, error) { return "ok", nil }),
	)
	return executor.MustNew(reg, executor.WithExtensions(logging.New(zap.New(core), logging.WithArgs(true)))), logs
}

// logged is every log entry's text, its fields included.
func logged(logs *observer.ObservedLogs) string {
	var b strings.Builder
	for _, e := range logs.All() {
		b.WriteString(e.Message)
		for k, v := range e.ContextMap() {
			b.WriteString(" " + k + "=")
			j, _ := json.Marshal(v)
			b.Write(j)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// A call the loop refuses before the executor (a declared tool Offer hid
// this turn, a registered tool the agent did not declare) went to the
// executor's observers (logging, the audit trail) without its tool's
// spec, so the arguments the tool declares secret were logged as the
// model wrote them: a pin the model read in a tool's result and passed
// on was in the log, where the same call run by the executor has it
// masked. The loop masks them (the tool's Spec.Secrets and the default
// rule) before it reports the call.
func TestAttackS29RefusedCallsLogNoDeclaredSecret(t *testing.T) {
	args := json.RawMessage(`{"to":"mallory","pin":"` + pin + `"}`)
	cases := map[string]agent.Options{
		"hidden by Offer": {Tools: []string{"pay", "status"}, Offer: func(s *tool.Spec) bool { return s.Name != "pay" }},
		"not declared":    {Tools: []string{"status"}},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			ex, logs := secretExec(t)
			opts.Executor = ex
			model := &script{turns: turns(
				agent.Message{Calls: []tool.Call{{ID: "c1", Name: "pay", Args: args}}},
				agent.Message{Text: "done"},
			)}
			tr, err := agent.Run(context.Background(), model, nil, opts)
			require.NoError(t, err)
			require.NotNil(t, tr.Steps[0].Results[0].Error, "the call is refused")
			require.NotEmpty(t, logs.All(), "the refusal is logged")
			text := logged(logs)
			assert.Contains(t, text, "mallory", "the log keeps the arguments that are not secret")
			assert.NotContains(t, text, pin, "the log holds the declared secret")
			assert.JSONEq(t, string(args), string(tr.Steps[0].Calls[0].Args), "the transcript keeps the call as the model made it")
		})
	}
	t.Run("run by the executor", func(t *testing.T) {
		// The executor's own log of the same call, for comparison: masked.
		ex, logs := secretExec(t)
		model := &script{turns: turns(
			agent.Message{Calls: []tool.Call{{ID: "c1", Name: "pay", Args: args}}},
			agent.Message{Text: "done"},
		)}
		_, err := agent.Run(context.Background(), model, nil, agent.Options{Executor: ex, Tools: []string{"pay"}})
		require.NoError(t, err)
		assert.NotContains(t, logged(logs), pin)
	})
}

// The error of a run stopped at MaxIterations names the last calls with
// their arguments, a line meant for a log: the arguments went in as the
// model wrote them, a declared secret and a password alike. They are
// masked as the executor's log masks them.
func TestAttackS29MaxIterationsErrorHoldsNoSecret(t *testing.T) {
	ex, _ := secretExec(t)
	const password = "hunter2-correct-horse"
	model := agent.ModelFunc(func(context.Context, []agent.Message, []tool.Spec) (agent.Message, error) {
		return agent.Message{Calls: []tool.Call{
			{Name: "pay", Args: json.RawMessage(`{"to":"mallory","pin":"` + pin + `"}`)},
			{Name: "login", Args: json.RawMessage(`{"user":"bob","password":"` + password + `"}`)},
		}}, nil
	})
	_, err := agent.Run(context.Background(), model, nil, agent.Options{Executor: ex, Tools: []string{"pay"}, MaxIterations: 2})
	require.True(t, errors.Is(err, agent.ErrMaxIterations), "%v", err)
	assert.Contains(t, err.Error(), "mallory", "the error still says what the calls were")
	assert.NotContains(t, err.Error(), pin, "the error holds the declared secret")
	assert.NotContains(t, err.Error(), password, "the error holds a password")
}
