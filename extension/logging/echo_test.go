package logging_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An extension's own error can quote a secret argument too (a custom rule
// that names the value it refused): the extensions outside it (logging),
// the result, history and events get it masked, as a backend's.
func TestExtensionErrorEchoingASecretIsMasked(t *testing.T) {
	type in struct {
		User string `json:"user"`
		Pin  string `json:"pin"`
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("unlock", "Unlock the vault", func(context.Context, in) (string, error) {
		return "open", nil
	}, tool.WithSecrets("pin")))
	refuse := extension.Func("pinrule", extension.PriorityAuth, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			var a in
			_ = json.Unmarshal(req.Call.Args, &a)
			return tool.Failure(&req.Call, &tool.Error{Code: tool.CodePolicyDenied,
				Message: fmt.Sprintf("pin %s is on the blocklist", a.Pin),
				Err:     fmt.Errorf("rule 7: pin %s refused for %s", a.Pin, a.User)})
		}
	})
	core, logs := observer.New(zapcore.InfoLevel)
	ex := executor.MustNew(reg, executor.WithExtensions(refuse, logging.New(zap.New(core))))
	events, stop := ex.Subscribe(executor.EventFilter{})
	defer stop()
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "unlock", Args: []byte(`{"user":"ada","pin":"739164"}`)})
	require.Error(t, err)
	assert.NotContains(t, res.Error.Message, "739164")
	assert.Contains(t, res.Error.Message, "is on the blocklist")
	require.Error(t, res.Error.Err)
	assert.NotContains(t, res.Error.Err.Error(), "739164")
	assert.Contains(t, res.Error.Err.Error(), "refused for ada", "only the secret is masked")
	require.Equal(t, 1, logs.Len())
	for k, v := range logs.All()[0].ContextMap() {
		assert.NotContains(t, fmt.Sprint(v), "739164", "log field %s", k)
	}
	for _, r := range ex.History(executor.HistoryQuery{}) {
		assert.NotContains(t, r.Message, "739164")
	}
	for len(events) > 0 {
		ev := <-events
		assert.NotContains(t, ev.Reason, "739164")
	}
}

// A secret the one rule finds by its key's name (no Spec.Secrets) that
// the tool echoes in its error: the audit record masked it, the log line
// kept it in plain text.
func TestLogMasksEchoOfASecretNamedByItsKey(t *testing.T) {
	type in struct {
		User     string `json:"user"`
		Password string `json:"password"`
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("login", "Log in", func(_ context.Context, a in) (string, error) {
		return "", fmt.Errorf("login as %s with %s failed", a.User, a.Password)
	}))
	core, logs := observer.New(zapcore.InfoLevel)
	ex := executor.MustNew(reg, executor.WithExtensions(logging.New(zap.New(core), logging.WithArgs(true))))
	_, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "login", Args: []byte(`{"user":"ada","password":"hunter2abc"}`)})
	require.Error(t, err)
	require.Equal(t, 1, logs.Len())
	fields := logs.All()[0].ContextMap()
	for k, v := range fields {
		assert.NotContains(t, fmt.Sprint(v), "hunter2abc", "log field %s", k)
	}
	assert.Contains(t, fmt.Sprint(fields["error"]), "login as ada with", "only the secret is masked")
}
