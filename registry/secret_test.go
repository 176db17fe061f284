package registry_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A field tagged toolbelt:"secret" never has its value in a validation
// error: the registry compiles the input schema with the spec's secrets.
func TestSecretTaggedValueNotInValidationError(t *testing.T) {
	type in struct {
		User string `json:"user"`
		Pin  int    `json:"pin" jsonschema:"minimum=100000" toolbelt:"secret"`
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("login", "Log in", func(context.Context, in) (string, error) { return "ok", nil }))
	e, ok := reg.Lookup("login")
	require.True(t, ok)
	_, verr := e.CheckArgs([]byte(`{"user":"bob","pin":1234}`))
	require.Error(t, verr)
	assert.Contains(t, verr.Error(), "pin: must be >= 100000")
	assert.NotContains(t, verr.Error(), "1234")
}

// A tool without a description is refused: a model picks tools by their
// descriptions, and an empty one was accepted silently.
func TestEmptyDescriptionRefused(t *testing.T) {
	reg := registry.New()
	err := reg.Register(tool.Func("ping", "  ", func(context.Context, struct{}) (string, error) { return "pong", nil }))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `tool "ping" has no description: tell the model what the tool does`)
}
