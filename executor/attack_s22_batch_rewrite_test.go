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

// redirectTo is an extension that rewrites the path of call "a" to to, as
// an extension that moves writes elsewhere (a scratch copy) would.
func redirectTo(to string) extension.Extension {
	return extension.Func("redirect", extension.PriorityRetry, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			if req.Call.ID == "a" {
				r := *req
				r.Call.Args = json.RawMessage(`{"path":` + string(must(json.Marshal(to))) + `,"line":"a"}`)
				return next(ctx, &r)
			}
			return next(ctx, req)
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// In a batch that runs one call at a time, an extension rewrote call a to
// write the file that call b, later in the batch, writes. a queued for it
// behind b, and b could not start until a gave back the batch's only slot:
// a waited with nothing to bound it but the caller's context (forever with
// context.Background). Seen failing first: a gave up only at the 5 s
// deadline of the test's context. Now a is refused at once, with the
// reason, and b runs.
func TestAttackS22BatchRewriteBehindLaterSiblingDoesNotHang(t *testing.T) {
	dir := t.TempDir()
	x, y := filepath.Join(dir, "x"), filepath.Join(dir, "y")
	var probe scProbe
	ex := executor.MustNew(scRegistry(t, scAppendTool("w", &probe, true)),
		executor.WithBatchConcurrency(1), executor.WithExtensions(redirectTo(y)))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	began := time.Now()
	res := ex.ExecuteBatch(ctx, []tool.Call{
		scCall("a", "w", scPathArgs{Path: x, Line: "a"}),
		scCall("b", "w", scPathArgs{Path: y, Line: "b"}),
	})
	require.NoError(t, ctx.Err(), "the batch waited %v, until the caller's deadline", time.Since(began))
	require.NotNil(t, res[0].Error, "a")
	assert.Equal(t, tool.CodeConflict, res[0].Error.Code, "%v", res[0].Error)
	assert.Contains(t, res[0].Error.Message, `call "b"`)
	assert.Nil(t, res[1].Error, "b")
	got, err := os.ReadFile(y)
	require.NoError(t, err)
	assert.Equal(t, "b\n", string(got), "a never wrote y")
	assert.Equal(t, 0, executor.LockedKeys(ex))
}

// A rewrite onto a file that a later call of the batch writes, once that
// call has run, waits for nothing: it runs.
func TestBatchRewriteOntoAFinishedSiblingsFileRuns(t *testing.T) {
	dir := t.TempDir()
	y := filepath.Join(dir, "y")
	var probe scProbe
	ex := executor.MustNew(scRegistry(t, scAppendTool("w", &probe, true)),
		executor.WithBatchConcurrency(1), executor.WithExtensions(redirectTo(y)))
	res := ex.ExecuteBatch(context.Background(), []tool.Call{
		scCall("b", "w", scPathArgs{Path: y, Line: "b"}),
		scCall("a", "w", scPathArgs{Path: filepath.Join(dir, "x"), Line: "a"}),
	})
	require.Nil(t, res[0].Error)
	require.Nil(t, res[1].Error)
	got, err := os.ReadFile(y)
	require.NoError(t, err)
	assert.Equal(t, "b\na\n", string(got))
}
