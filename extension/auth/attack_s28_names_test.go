package auth_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Tool-name tricks against the rules held, because the rules only ever see
// the names the registry keeps: ASCII letters, digits, '_' and '-'
// (tool.ValidName). A look-alike of a ruled name (another case, a
// fullwidth or Cyrillic letter, a blank, a dot or slash that a glob's '*'
// would not cross, an MCP server's "fs.delete" before mcptool makes it
// fs_delete) either cannot be registered, or is another tool that the
// rule does not cover and that is refused once there are rules; a rule
// written with the server's own name ("fs.*") is refused by executor.New.
// A call naming a look-alike finds no tool: the executor looks names up
// exactly. Pinned, so that a "friendlier" registry (folding case,
// NFKC, trimming) cannot make a glob judge one name and the executor run
// another.
func TestAttackS28ToolNameLookAlikesMeetTheRules(t *testing.T) {
	run := func(context.Context, struct{}) (string, error) { return "ran", nil }
	for _, name := range []string{"delete_repo ", " delete_repo", "ｄelete_repo", "dеlete_repo", "delete_repo\u200b", "fs.delete", "fs/delete", "server__fs/delete", "mcp:delete_repo"} {
		err := registry.New().Register(tool.Func(name, "look-alike", run))
		assert.Error(t, err, "the registry took %q", name)
	}

	reg := registry.New()
	reg.MustRegister(
		tool.Func("delete_repo", "Delete a repository", run),
		tool.Func("Delete_repo", "Another tool, whose name differs only in case", run),
		tool.Func("fs_delete", "An MCP server's fs.delete", run),
		tool.Func("fs_read", "An MCP server's fs.read", run),
	)
	a := auth.New(auth.Allow("admin", "delete_repo", "fs_*"), auth.Allow("dev", "fs_read"))
	ex := executor.MustNew(reg, executor.WithExtensions(a))
	dev := tool.Principal{ID: "dev", Roles: []string{"dev"}}
	for _, name := range []string{"delete_repo", "Delete_repo", "DELETE_REPO", "delete_repo ", "fs_delete", "fs.delete", "fs_delete\x00", "ｆs_delete"} {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: json.RawMessage(`{}`), Principal: dev})
		if assert.NotNil(t, res.Error, "dev ran %q", name) {
			assert.Contains(t, []tool.Code{tool.CodeUnauthorized, tool.CodeNotFound}, res.Error.Code, "%q", name)
		}
	}
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "fs_read", Args: json.RawMessage(`{}`), Principal: dev})
	require.True(t, res.OK(), "%v", res.Error)

	for _, glob := range []string{"fs.*", "fs/*", "delete_repo ", "DELETE_REPO"} {
		_, err := executor.New(reg, executor.WithExtensions(auth.New(auth.Allow("admin", glob))))
		assert.Error(t, err, "a rule for %q, which names no registered tool, was taken", glob)
	}
}
