package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool's error that echoes a secret argument (a declared secret, or one
// under a name that looks secret) must not carry it into the trail, even
// when nothing in the message's wording says it is a secret.
func TestErrorEchoingASecretArgument(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(path)
	require.NoError(t, err)
	reg := registry.New()
	reg.MustRegister(tool.Func("login", "Login", func(_ context.Context, in struct {
		User   string `json:"user"`
		Pin    string `json:"pin" toolbelt:"secret"`
		APIKey string `json:"api_key"`
	}) (string, error) {
		return "", fmt.Errorf("user %s: pin %s rejected; key %s unknown", in.User, in.Pin, in.APIKey)
	}))
	ex := executor.MustNew(reg, executor.WithExtensions(trail))
	args := `{"user":"alice","pin":"739164","api_key":"k-9f8e7d6c5b4a"}`
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "login", Args: json.RawMessage(args)})
	require.NotNil(t, res)
	require.NotNil(t, res.Error)
	require.NoError(t, trail.Close())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "739164")
	assert.NotContains(t, string(raw), "k-9f8e7d6c5b4a")
	assert.Contains(t, string(raw), "user alice", "the rest of the message stays")
}
