package executor_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A plain error from a Go func: the model reads its message; the Go type of
// its cause goes to the result's metadata, which the model is not sent.
func TestToolErrorInternalsGoToMetadata(t *testing.T) {
	type in struct {
		Path string `json:"path"`
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("open_report", "Open a report", func(_ context.Context, a in) (string, error) {
		_, err := os.Open(a.Path)
		return "", fmt.Errorf("opening the report: %w", err)
	}))
	ex := executor.MustNew(reg)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "open_report", Args: []byte(`{"path":"/nonexistent/report.txt"}`)})
	require.Error(t, err)
	assert.Equal(t, tool.CodeToolError, res.Error.Code)
	assert.Equal(t, "*fs.PathError", res.Metadata[tool.MetaErrorType])
	text := wire.Text(res)
	assert.Contains(t, text, "opening the report: open /nonexistent/report.txt: no such file or directory")
	assert.NotContains(t, text, "PathError", "the model is not sent the internals")
}

// A tool that echoes a secret argument in its error ("pin 739164
// rejected"): the value is masked in the message every reader sees (the
// model, logs, events, history, the audit trail) and in the cause the logs
// keep, as issue 16 promises: secret-tagged values never appear in an
// error message.
func TestToolErrorEchoingASecretIsMasked(t *testing.T) {
	type in struct {
		User string `json:"user"`
		Pin  string `json:"pin"`
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("unlock", "Unlock the vault", func(_ context.Context, a in) (string, error) {
		return "", fmt.Errorf("vault: pin %s rejected for %s", a.Pin, a.User)
	}, tool.WithSecrets("pin")))
	ex := executor.MustNew(reg)
	events, stop := ex.Subscribe(executor.EventFilter{})
	defer stop()
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "unlock", Args: []byte(`{"user":"ada","pin":"739164"}`)})
	require.Error(t, err)
	assert.NotContains(t, res.Error.Message, "739164")
	assert.Contains(t, res.Error.Message, "rejected for ada", "only the secret is masked")
	require.Error(t, res.Error.Err)
	assert.NotContains(t, res.Error.Err.Error(), "739164")
	assert.Equal(t, "*errors.errorString", res.Metadata[tool.MetaErrorType], "the cause's type, not the mask's")
	assert.NotContains(t, wire.Text(res), "739164")
	for _, r := range ex.History(executor.HistoryQuery{}) {
		assert.NotContains(t, r.Message, "739164")
	}
	for len(events) > 0 {
		ev := <-events
		assert.NotContains(t, ev.Reason, "739164")
	}
}

// Arguments that name one key twice in an object are refused: readers
// disagree on which one counts (encoding/json and the policy take the last,
// other parsers a remote backend may use take the first, and a person on
// the approval card reads the first), so a call could be judged on one
// value and run with the other.
func TestDuplicateArgumentKeysAreRefused(t *testing.T) {
	type in struct {
		Path string `json:"path"`
		Opt  *struct {
			Mode string `json:"mode"`
		} `json:"opt,omitempty"`
	}
	var ran []string
	reg := registry.New()
	reg.MustRegister(tool.Func("read", "Read a file", func(_ context.Context, a in) (string, error) {
		ran = append(ran, a.Path)
		return a.Path, nil
	}))
	reg.MustRegister(tool.Func("any", "Takes any object", func(_ context.Context, a map[string]any) (string, error) {
		ran = append(ran, fmt.Sprint(a))
		return "ok", nil
	}))
	ex := executor.MustNew(reg)
	for _, c := range []struct{ tool, args, key string }{
		{"read", `{"path":"notes.txt","path":"/etc/passwd"}`, "path"},
		{"read", `{"path":"notes.txt","p\u0061th":"/etc/passwd"}`, "path"},
		{"read", `{"path":"a","opt":{"mode":"r","mode":"w"}}`, "mode"},
		{"any", `{"x":1,"y":{"z":[{"k":1,"k":2}]}}`, "k"},
	} {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: c.tool, Args: []byte(c.args)})
		require.Error(t, err, c.args)
		assert.Equal(t, tool.CodeInvalidArguments, res.Error.Code, c.args)
		assert.Contains(t, res.Error.Message, fmt.Sprintf("%q", c.key), c.args)
	}
	assert.Empty(t, ran, "no call with a repeated key ran")
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c2", Name: "read", Args: []byte(`{"path":"a","opt":{"mode":"r"}}`)})
	require.NoError(t, err)
	require.True(t, res.OK())
	for _, args := range []string{`{"k":1,"o":{"k":2},"c":[{"k":1},{"k":2}],"s":"\"k\":1,\"k\":2"}`, `{"a":[1,{"b":2},[3]],"b":{}}`} {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c3", Name: "any", Args: []byte(args)})
		require.NoError(t, err, "the same key in different objects, or in a string, is fine: %s", args)
		require.True(t, res.OK())
	}
}
