package auth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// counted is auth with its decisions counted, the executor's questions
// (Authorize) and the chain's (Wrap) alike, and their answers kept.
type counted struct {
	*auth.Auth
	asked   atomic.Int64
	refused atomic.Int64
}

func (c *counted) Authorize(p tool.Principal, spec *tool.Spec) (string, error) {
	c.asked.Add(1)
	rule, err := c.Auth.Authorize(p, spec)
	if err != nil {
		c.refused.Add(1)
	}
	return rule, err
}

func (c *counted) Wrap(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		if rule, err := c.Authorize(req.Call.Principal, req.Spec); err != nil {
			return extension.Refusal(&req.Call, rule, err)
		}
		return next(ctx, req)
	}
}

// How often is a call of a tool that declares its resources
// (tool.ResourceDeclarer: every tool.Func) authorised, and do the answers
// agree? The executor asks at admission (so that the tool's Resources
// never runs on a hidden principal's arguments), the chain asks again,
// and on a refusal the executor asks once more to answer it as a name no
// tool has, and once per tool it considers naming in that answer. Auth's
// decision is a pure function of the principal and the spec (immutable
// after New), so every question gets the same answer: the second is a
// walk of the rules, not a different decision. extension.Authorizer's
// godoc asks the same of an authorizer of your own.
func TestAttackS31AuthorizeIsAskedAFewTimesAndAgrees(t *testing.T) {
	reg := registry.New()
	var declared atomic.Int64
	type purge struct {
		Bucket string `json:"bucket"`
	}
	reg.MustRegister(
		tool.Func("purge_backups", "Purge the backups", func(context.Context, purge) (string, error) { return "purged", nil },
			tool.WithResources(func(json.RawMessage) []tool.Resource {
				declared.Add(1)
				return []tool.Resource{{Key: "bucket", Access: tool.Write}}
			})),
		tool.Func("status", "Service status", func(context.Context, struct{}) (string, error) { return "up", nil }),
	)
	for i := range 10 {
		reg.MustRegister(tool.Func(fmt.Sprintf("other_%02d", i), "Another tool", func(context.Context, struct{}) (string, error) { return "", nil }))
	}
	c := &counted{Auth: auth.New(auth.Allow("ops", "purge_backups"), auth.Allow(auth.AnyRole, "status"), auth.Allow("ops", "other_*"))}
	ex, err := executor.New(reg, executor.WithExtensions(c))
	require.NoError(t, err)
	ctx := context.Background()
	alice := tool.Principal{ID: "alice", Roles: []string{"ops"}}
	bob := tool.Principal{ID: "bob", Roles: []string{"dev"}}
	tools := int64(reg.Len())
	for _, tc := range []struct {
		name     string
		call     tool.Call
		ok       bool
		most     int64
		declares bool
	}{
		{"allowed, declares resources", tool.Call{ID: "c1", Name: "purge_backups", Args: json.RawMessage(`{"bucket":"b"}`), Principal: alice}, true, 2, true},
		{"allowed, declares none", tool.Call{ID: "c2", Name: "status", Args: json.RawMessage(`{}`), Principal: bob}, true, 2, false},
		// Admission, the chain, the answer, and the tools the answer may name.
		{"refused", tool.Call{ID: "c3", Name: "purge_backups", Args: json.RawMessage(`{"bucket":"b"}`), Principal: bob}, false, 3 + 2*tools, false},
	} {
		c.asked.Store(0)
		c.refused.Store(0)
		declared.Store(0)
		res, _ := ex.Execute(ctx, tc.call)
		require.Equal(t, tc.ok, res.OK(), "%s: %v", tc.name, res.Error)
		t.Logf("%s: asked %d times", tc.name, c.asked.Load())
		assert.LessOrEqual(t, c.asked.Load(), tc.most, tc.name)
		if tc.ok {
			assert.Zero(t, c.refused.Load(), "%s: a question was answered otherwise", tc.name)
		} else {
			assert.Equal(t, tool.CodeNotFound, res.Error.Code, "%s: answered as a name no tool has", tc.name)
			assert.Zero(t, declared.Load(), "%s: the tool's Resources ran on a hidden principal's arguments", tc.name)
		}
		if tc.ok && tc.declares {
			assert.Equal(t, int64(1), declared.Load(), "%s: the tool's Resources ran once", tc.name)
		}
	}
}
