package executor_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/tool"
)

// recorder is an operator's record (the place of the audit trail, at its
// priority): what the chain answered a call, and what the executor told
// its observers of the calls it refused before the chain.
type recorder struct {
	mu   sync.Mutex
	seen map[string]*tool.Result // by call ID
}

func (r *recorder) Name() string  { return "recorder" }
func (r *recorder) Priority() int { return extension.PriorityAudit }
func (r *recorder) Wrap(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		res := next(ctx, req)
		r.keep(req.Call.ID, res)
		return res
	}
}
func (r *recorder) Refused(_ context.Context, call *tool.Call, _ *tool.Spec, res *tool.Result) {
	r.keep(call.ID, res)
}
func (r *recorder) keep(id string, res *tool.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cp := *res
	if res.Error != nil {
		e := *res.Error
		cp.Error = &e
	}
	r.seen[id] = &cp
}
func (r *recorder) get(id string) *tool.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[id]
}

// A principal refused a tool (hidden from it in tools/list) could learn
// that the tool exists by guessing its name: the call was answered
// unauthorized ("tool "purge_backups" is restricted by rule ..."), a name
// no tool has was answered not_found. It is now answered as a name no tool
// has, valid arguments or not, through Execute, ExecuteBatch and Submit;
// the operator's record (an extension at the audit trail's priority, an
// observer) still reads auth's refusal and its rule, and a principal who
// may call the tool is told as before.
func TestAttackS29RefusedToolAnsweredAsUnknown(t *testing.T) {
	type purge struct {
		Bucket string `json:"bucket"`
	}
	reg := scRegistry(t,
		tool.Func("purge_backups", "Purge the backups", func(context.Context, purge) (string, error) { return "purged", nil }, tool.WithRisk(tool.RiskLow)),
		tool.Func("status", "Service status", func(context.Context, struct{}) (string, error) { return "up", nil }, tool.ReadOnly()),
	)
	rec := &recorder{seen: map[string]*tool.Result{}}
	ex, err := executor.New(reg, executor.WithExtensions(auth.New(auth.Allow("ops", "purge_backups"), auth.Allow(auth.AnyRole, "status")), rec))
	require.NoError(t, err)
	bob := tool.Principal{ID: "bob", Roles: []string{"dev"}}
	alice := tool.Principal{ID: "alice", Roles: []string{"ops"}}
	ctx := context.Background()

	type run func(c tool.Call) *tool.Result
	ways := map[string]run{
		"Execute": func(c tool.Call) *tool.Result { res, _ := ex.Execute(ctx, c); return res },
		"ExecuteBatch": func(c tool.Call) *tool.Result {
			return ex.ExecuteBatch(ctx, []tool.Call{c, {ID: c.ID + "-2", Name: "status", Args: json.RawMessage(`{}`), Principal: c.Principal}})[0]
		},
		"Submit": func(c tool.Call) *tool.Result {
			id, err := ex.Submit(ctx, c)
			require.NoError(t, err)
			res, _ := ex.Wait(ctx, id)
			return res
		},
	}
	n := 0
	for way, run := range ways {
		call := func(p tool.Principal, name, args string) (tool.Call, *tool.Result) {
			n++
			c := tool.Call{ID: way + "-" + strings.Repeat("x", n), Name: name, Args: json.RawMessage(args), Principal: p}
			return c, run(c)
		}
		// What a name no tool has is answered with, the hidden name put in.
		_, unknown := call(bob, "purge_backupz", `{"bucket": "b"}`)
		require.NotNil(t, unknown.Error, way)
		require.Equal(t, tool.CodeNotFound, unknown.Error.Code, way)
		want := strings.ReplaceAll(unknown.Error.Message, "purge_backupz", "purge_backups")
		for _, args := range []string{`{"bucket": "b"}`, `{"bucket": 7}`} {
			c, res := call(bob, "purge_backups", args)
			require.NotNil(t, res.Error, "%s %s", way, args)
			assert.Equal(t, tool.CodeNotFound, res.Error.Code, "%s %s: bob learns purge_backups exists: %s", way, args, res.Error)
			assert.Equal(t, want, res.Error.Message, "%s %s", way, args)
			assert.Equal(t, unknown.Status, res.Status, "%s %s", way, args)
			// The operator's record says auth refused it, and by which rule.
			seen := rec.get(c.ID)
			require.NotNil(t, seen, "%s %s: nothing recorded", way, args)
			assert.Equal(t, tool.CodeUnauthorized, seen.Error.Code, "%s %s", way, args)
			assert.Contains(t, seen.Error.Message, `restricted by rule "role:ops"`, "%s %s", way, args)
			assert.Equal(t, "role:ops", seen.Metadata[auth.MetaRule], "%s %s", way, args)
			// So does the program's side of the answer (no model is sent it).
			assert.ErrorIs(t, res.Err(), tool.ErrUnauthorized, "%s %s", way, args)
			assert.Equal(t, "role:ops", res.Metadata[auth.MetaRule], "%s %s", way, args)
		}
		// Alice, who may call it, is told as before.
		_, res := call(alice, "purge_backups", `{"bucket": 7}`)
		assert.Equal(t, tool.CodeInvalidArguments, res.Error.Code, way)
		_, res = call(alice, "purge_backups", `{"bucket": "b"}`)
		assert.True(t, res.OK(), "%s: %v", way, res.Error)
	}
}
