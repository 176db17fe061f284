package executor_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A failed call's history record kept its error message as the tool wrote
// it: a token in a clone URL, an Authorization header, or the value of an
// argument the tool declares secret that it echoed back ("pin 4711
// rejected") went whole into the in-memory history and into every
// HistoryStore (a shared PostgreSQL table), where the audit trail and the
// log mask them. The record's message is now redacted by the one rule the
// trail and the log use, and a long one is cut after that, so that no
// piece of a secret survives at a cut either.
func TestAttackS26HistoryKeepsNoSecretOfAnError(t *testing.T) {
	const token = "ghp_Q9pZ3xY7wV2uT1sR0qP9oN8mL7kJ6iH5gF4e"
	const pin = "4711-secret-pin"
	cases := []struct {
		name, msg string
		secret    string
	}{
		{"token in a URL", "git clone https://bot:" + token + "@github.com/acme/app.git: exit status 128", token},
		{"bearer header", "request failed: Authorization: Bearer " + token + " was refused", token},
		{"secret argument echoed", "pin " + pin + " rejected by the bank", pin},
		{"tokens at the cuts of a long message", strings.Repeat(token+" ", 3*executor.MaxRecordMessageBytes/len(token)), token},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg := registry.New()
			reg.MustRegister(tool.Func("pay", "pays", func(context.Context, struct {
				Pin string `json:"pin"`
			}) (string, error) {
				return "", errors.New(c.msg)
			}, tool.WithSecrets("pin")))
			ex := executor.MustNew(reg)
			res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "pay", Args: []byte(`{"pin":"` + pin + `"}`)})
			require.Error(t, err, "the tool fails")
			require.False(t, res.OK(), "the tool fails")
			recs := ex.History(executor.HistoryQuery{})
			require.Len(t, recs, 1)
			msg := recs[0].Message
			require.NotEmpty(t, msg, "the record keeps the error's text")
			assert.NotContains(t, msg, c.secret, "the history record keeps the secret")
			assert.NotContains(t, msg, c.secret[:12], "the history record keeps the head of the secret")
			assert.NotContains(t, msg, c.secret[len(c.secret)-12:], "the history record keeps the end of the secret")
			assert.LessOrEqual(t, len(msg), executor.MaxRecordMessageBytes, "the record's message is still bounded")
		})
	}
}
