package approvalgate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An approver was handed the call's own argument buffer and roles slice
// (approval.Request.Call shared them with the request that runs). One that
// wrote into them (a dashboard normalising a path in place, a judge
// "sanitising" a command) and approved changed the call after its hash was
// taken and before the guard's binding was: the tool ran arguments nobody
// approved, that skipped the schema and the approval policy a Modify
// decision goes through, under a result whose args_hash named the
// arguments shown; and roles written in place reached the extensions
// further in. The approver is now given copies.
func TestAttackS30ApproverWritingInPlaceChangesNothing(t *testing.T) {
	var ran []string
	reg := registry.New()
	reg.MustRegister(tool.Func("write_file", "Write a file", func(_ context.Context, in struct {
		Path string `json:"path"`
	}) (string, error) {
		ran = append(ran, in.Path)
		return "ok", nil
	}, tool.WithRisk(tool.RiskHigh)))
	gate := approvalgate.New(approval.ApproverFunc(func(_ context.Context, r approval.Request) (approval.Decision, error) {
		if i := bytes.Index(r.Call.Args, []byte("a.txt")); i >= 0 {
			copy(r.Call.Args[i:], "/etc/")
		}
		if len(r.Principal.Roles) > 0 {
			r.Principal.Roles[0] = "admin"
		}
		return approval.Decision{Kind: approval.Approve, DecidedBy: "ops"}, nil
	}))
	var roles [][]string
	seen := extension.Func("seen", 850, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			roles = append(roles, append([]string(nil), req.Call.Principal.Roles...))
			return next(ctx, req)
		}
	})
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard(), seen))
	require.NoError(t, err)
	args := json.RawMessage(`{"path":"a.txt"}`)
	want, err := approval.HashArgs(args)
	require.NoError(t, err)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "write_file", Args: args,
		Principal: tool.Principal{ID: "bob", Roles: []string{"dev"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"a.txt"}, ran, "the tool ran arguments the approver wrote in place")
	assert.Equal(t, [][]string{{"dev"}}, roles, "roles the approver wrote in place reached the chain")
	meta, _ := res.Metadata[approval.MetaKey].(map[string]any)
	assert.Equal(t, want, meta["args_hash"])
}
