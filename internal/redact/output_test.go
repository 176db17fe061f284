package redact_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/internal/redact"
)

// A tool's output loses what the argument rule redacts and the call's
// secret values it echoed, wherever and however they are written.
func TestOutput(t *testing.T) {
	args := json.RawMessage(`{"user":"alice","pin":"739164"}`)
	paths := []string{"pin"}
	for out, want := range map[string]string{
		`{"api_key":"k-9f8e7d6c5b4a","user":"alice"}`: `{"api_key":"[REDACTED]","user":"alice"}`,
		`{"msg":"pin 739164 accepted"}`:               `{"msg":"pin [REDACTED] accepted"}`,
		`{"msg":"pin \u0037\u0033\u0039164"}`:         `{"msg":"pin [REDACTED]"}`,
		`{"code":739164}`:                             `{"code":"[REDACTED]"}`,
		`{"739164":true}`:                             `{"[REDACTED]":true}`,
		`{"ok":true}`:                                 `{"ok":true}`,
	} {
		assert.JSONEq(t, want, string(redact.Output(json.RawMessage(out), paths, args)), out)
	}
	assert.JSONEq(t, `"[REDACTED]"`, string(redact.Output(json.RawMessage(`{"a":`), paths, args)), "output that is not JSON is masked whole")
}
