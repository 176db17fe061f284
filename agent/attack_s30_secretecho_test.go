package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool declares its pin secret; the model passes a pin the arguments'
// schema refuses (too long, not in the enum, of another type). What the
// model reads back of the refusal (the result's error, as wire.Text
// renders it) holds no declared secret's value, as the docs promise of
// the errors a backend or an extension returns (tool.Spec.Secrets).
func TestAttackS30SchemaErrorsSendNoDeclaredSecretToTheModel(t *testing.T) {
	type in struct {
		Account string `json:"account"`
		Pin     string `json:"pin" toolbelt:"secret" jsonschema:"maxLength=6,pattern=^[0-9]+$"`
		Mode    string `json:"mode,omitempty" jsonschema:"enum=fast,enum=slow"`
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("unlock", "Unlock an account", func(context.Context, in) (string, error) { return "unlocked", nil }))
	ex := executor.MustNew(reg)
	const pin = "hunter2secretpin"
	argsList := []string{
		`{"account":"a","pin":"` + pin + `"}`,
		`{"account":"a","pin":"` + pin + `","mode":"` + pin + `"}`,
		`{"account":"a","pin":["` + pin + `"]}`,
		`{"account":"a","pin":{"x":"` + pin + `"}}`,
	}
	var calls []tool.Call
	for _, a := range argsList {
		calls = append(calls, tool.Call{Name: "unlock", Args: json.RawMessage(a)})
	}
	tr, err := agent.Run(context.Background(), &script{turns: turns(agent.Message{Calls: calls}, agent.Message{Text: "done"})}, nil,
		agent.Options{Executor: ex, Tools: []string{"unlock"}})
	require.NoError(t, err)
	for i, r := range tr.Steps[0].Results {
		require.NotNil(t, r.Error, "args #%d ran", i)
		text := wire.Text(r)
		assert.False(t, strings.Contains(text, pin), "args #%d: the model reads the pin back: %s", i, text)
	}
}
