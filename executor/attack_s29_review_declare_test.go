package executor_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Admission asked a tool for the resources of a call (to take its place
// in the lock queues) before auth judged the principal: the code of a
// tool hidden from bob ran on bob's arguments, and a declaration that
// panics on them answered bob panic ("tool "purge_backups" declaring its
// resources panicked"), where a name no tool has is not_found. A
// principal who may call the tool still queues for its resources, and so
// does a call whose principal an extension outside auth changes to one
// auth lets through.
func TestAttackS29ReviewHiddenToolDeclaresNoResources(t *testing.T) {
	var declared atomic.Int32
	declare := func(args json.RawMessage) []tool.Resource {
		declared.Add(1)
		var a struct{ Bucket string }
		_ = json.Unmarshal(args, &a)
		if a.Bucket == "boom" {
			panic("no such bucket")
		}
		return []tool.Resource{{Key: "bucket:" + a.Bucket, Access: tool.Write}}
	}
	ex := hiddenFixture(t, declare, executor.WithExtensions(reviewAuth()))
	ctx := context.Background()
	for _, bucket := range []string{"b", "boom"} {
		args := json.RawMessage(`{"bucket":"` + bucket + `"}`)
		unknown, _ := ex.Execute(ctx, tool.Call{ID: bucket + "1", Name: "purge_backupz", Args: args, Principal: reviewBob})
		res, _ := ex.Execute(ctx, tool.Call{ID: bucket + "2", Name: "purge_backups", Args: args, Principal: reviewBob})
		sameAsUnknown(t, unknown, res, bucket)
	}
	assert.Zero(t, declared.Load(), "the hidden tool's code ran on bob's arguments")

	// Alice may: her call declares its bucket (and a declaration's panic
	// is hers to read, as before).
	alice := tool.Principal{ID: "alice", Roles: []string{"ops"}}
	res, _ := ex.Execute(ctx, tool.Call{ID: "a1", Name: "purge_backups", Args: json.RawMessage(`{"bucket":"b"}`), Principal: alice})
	assert.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, int32(1), declared.Load())
	res, _ = ex.Execute(ctx, tool.Call{ID: "a2", Name: "purge_backups", Args: json.RawMessage(`{"bucket":"boom"}`), Principal: alice})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodePanic, res.Error.Code)

	// An extension outside auth that changes the principal (a host's
	// token check) to one auth lets through: the call declares its
	// bucket when it reaches its backend, and runs.
	declared.Store(0)
	login := extension.Func("login", extension.PriorityAudit, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			req.Call.Principal = alice
			return next(ctx, req)
		}
	})
	ex = hiddenFixture(t, declare, executor.WithExtensions(reviewAuth(), login))
	res, _ = ex.Execute(ctx, tool.Call{ID: "l1", Name: "purge_backups", Args: json.RawMessage(`{"bucket":"b"}`), Principal: reviewBob})
	assert.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, int32(1), declared.Load(), "the call ran without its lock")
}
