package executor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// s22rPairArgs names the two files a "pair" call writes.
type s22rPairArgs struct {
	Path  string `json:"path"`
	Path2 string `json:"path2"`
}

// s22rPairTool writes two files at once: a write lock on each.
func s22rPairTool() tool.Tool {
	return tool.Func("pair", "Write two files", func(ctx context.Context, in s22rPairArgs) (string, error) {
		return "ok", nil
	}, tool.WithResources(func(args json.RawMessage) []tool.Resource {
		var a s22rPairArgs
		_ = json.Unmarshal(args, &a)
		return []tool.Resource{{Key: "file:" + a.Path, Access: tool.Write}, {Key: "file:" + a.Path2, Access: tool.Write}}
	}))
}

// The batch rule refuses a call rewritten onto a resource a later, not yet
// started sibling is queued for; it looks only at the tickets directly
// ahead of the new one. Here call a of a one-slot batch is rewritten onto
// file z, which call x of another caller holds, and x waits for file y
// behind c, the later sibling that cannot start until a gives the slot
// back: a waits for x, x for c, c for a. Nothing but the caller's context
// bounds it (with context.Background the batch and x hang forever).
func TestAttackS22RBatchRewriteBehindOutsiderWaitingForLaterSibling(t *testing.T) {
	dir := t.TempDir()
	x, y, z := filepath.Join(dir, "x"), filepath.Join(dir, "y"), filepath.Join(dir, "z")
	var probe scProbe
	var ex *executor.Executor
	outsider := make(chan *tool.Result, 1)
	// Before a is rewritten, x of another caller takes z and queues for y.
	takeZ := extension.Func("take-z", extension.PriorityPolicy, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			if req.Call.ID == "a" {
				queued, stop := ex.Subscribe(executor.EventFilter{CallID: "x", Kinds: []tool.EventKind{tool.EventQueued}})
				defer stop()
				go func() {
					res, _ := ex.Execute(context.Background(), scCall("x", "pair", s22rPairArgs{Path: y, Path2: z}))
					outsider <- res
				}()
				<-queued // x holds z and waits for y, behind c
			}
			return next(ctx, req)
		}
	})
	ex = executor.MustNew(scRegistry(t, scAppendTool("w", &probe, true), s22rPairTool()),
		executor.WithBatchConcurrency(1), executor.WithExtensions(takeZ, redirectTo(z)))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	began := time.Now()
	res := ex.ExecuteBatch(ctx, []tool.Call{
		scCall("a", "w", scPathArgs{Path: x, Line: "a"}),
		scCall("c", "w", scPathArgs{Path: y, Line: "c"}),
	})
	hung := ctx.Err()
	xres := <-outsider
	require.NoError(t, hung, "the batch waited %v, until the caller's deadline: a behind x behind c behind a", time.Since(began))
	require.NotNil(t, res[0].Error, "a")
	assert.Equal(t, tool.CodeConflict, res[0].Error.Code, "%v", res[0].Error)
	assert.Nil(t, res[1].Error, "c")
	assert.Nil(t, xres.Error, "x")
	got, err := os.ReadFile(y)
	require.NoError(t, err)
	assert.Equal(t, "c\n", string(got))
	assert.Equal(t, 0, executor.LockedKeys(ex))
}
