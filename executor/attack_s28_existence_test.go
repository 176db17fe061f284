package executor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The MCP server hides from tools/list the tools auth refuses a principal,
// but the executor's own errors named them: a call to a tool that does not
// exist was answered "did you mean "purge_backups"?" or "available tools
// are ...", from every registered tool, and arguments were validated
// against the schema before auth ran, so a principal refused a tool read
// its required argument names in the validation error. A principal now
// hears of the tools it may call only, and a call of a tool it may not
// make is refused by auth whatever its arguments; an authorised call is
// told what it was before.
func TestAttackS28RefusedToolsStayUnnamed(t *testing.T) {
	type purge struct {
		Bucket        string `json:"bucket"`
		RetentionDays int    `json:"retention_days"`
	}
	reg := scRegistry(t,
		tool.Func("purge_backups", "Purge the backups", func(context.Context, purge) (string, error) { return "purged", nil }, tool.WithRisk(tool.RiskLow)),
		tool.Func("status", "Service status", func(context.Context, struct{}) (string, error) { return "up", nil }, tool.ReadOnly()),
	)
	a := auth.New(auth.Allow("ops", "purge_backups"), auth.Allow(auth.AnyRole, "status"))
	bob := tool.Principal{ID: "bob", Roles: []string{"dev"}}
	alice := tool.Principal{ID: "alice", Roles: []string{"ops"}}
	for _, ext := range []extension.Extension{a, extension.WithPriority(a, extension.PriorityAuth)} {
		ex, err := executor.New(reg, executor.WithExtensions(ext))
		require.NoError(t, err)
		run := func(p tool.Principal, name, args string) *tool.Result {
			res, _ := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: name, Args: json.RawMessage(args), Principal: p})
			return res
		}

		res := run(bob, "purge_backup", `{}`)
		assert.Equal(t, tool.CodeNotFound, res.Error.Code)
		assert.NotContains(t, res.Error.Message, "purge_backups", "bob was told of a tool he may not call")
		res = run(bob, "list", `{}`)
		assert.Equal(t, `no tool named "list": available tools are status`, res.Error.Message)
		res = run(bob, "purge_backups", `{"bucket": 7}`)
		// Refused by auth, answered as a name no tool has (TestAttackS29RefusedToolAnsweredAsUnknown).
		assert.Equal(t, tool.CodeNotFound, res.Error.Code, "bob's call was judged on its arguments before auth: %s", res.Error.Message)
		assert.ErrorIs(t, res.Err(), tool.ErrUnauthorized)
		assert.NotContains(t, res.Error.Message, "retention_days", "bob read the arguments of a tool he may not call")

		// Alice, who may call it, is told as before.
		res = run(alice, "purge_backup", `{}`)
		assert.Contains(t, res.Error.Message, `did you mean "purge_backups"?`)
		res = run(alice, "purge_backups", `{"bucket": 7}`)
		assert.Equal(t, tool.CodeInvalidArguments, res.Error.Code)
		assert.Contains(t, res.Error.Message, "retention_days")
	}
}
