package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// countingReader is n bytes of 'a' (no newline), counting what was read.
type countingReader struct{ n, read int64 }

func (r *countingReader) Read(p []byte) (int, error) {
	if r.read >= r.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), r.n-r.read)
	for i := range p[:k] {
		p[i] = 'a'
	}
	r.read += k
	return int(k), nil
}

// Verify and Open read a whole line into memory: a file with a line of
// gigabytes made them allocate it all. A line longer than any the trail
// writes is refused once the limit is passed, with the file, the line, the
// limit and what to do.
func TestAttackHugeLineIsRefusedAtTheLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeRecords(t, path, 2)
	good, err := os.ReadFile(path)
	require.NoError(t, err)

	huge := &countingReader{n: 2*audit.MaxLineBytes + 10}
	rep, err := audit.VerifyReader(io.MultiReader(bytes.NewReader(good), huge))
	require.ErrorIs(t, err, audit.ErrBroken, "a line no trail writes is not a torn record")
	assert.Equal(t, 2, rep.Records)
	require.NotNil(t, rep.Break)
	assert.Equal(t, 3, rep.Break.Line)
	assert.Contains(t, err.Error(), fmt.Sprint(audit.MaxLineBytes))
	assert.Contains(t, err.Error(), "start a new trail")
	assert.Less(t, huge.read, int64(audit.MaxLineBytes+1<<20), "Verify read on past the limit")

	// The same through a file: Verify and Open name it.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = io.Copy(f, &countingReader{n: audit.MaxLineBytes + 2})
	require.NoError(t, err)
	_, err = f.WriteString("\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = audit.Verify(path)
	require.ErrorIs(t, err, audit.ErrBroken)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "line 3")
	_, err = audit.Open(path)
	require.ErrorIs(t, err, audit.ErrBroken)
	assert.Contains(t, err.Error(), path)
	_, err = audit.Repair(path)
	require.ErrorIs(t, err, audit.ErrBroken, "Repair does not cut a line the trail never wrote")
}

type blobIn struct {
	S string `json:"s"`
}

// The largest records the extension writes under the executor's default
// caps (1 MiB of arguments, rewritten by an extension so the outcome holds
// them too, and an error message at its 1 MiB cap, every byte of them
// escaped to six) are well within MaxLineBytes and keep everything. An
// error's cause (tool.Error.Err, 8 MiB here) is not in the record at all:
// the record keeps the message the model was given.
func TestLargestDefaultRecordsFitTheLineLimit(t *testing.T) {
	cause := strings.Repeat("CAUSE", 8<<20/5)
	reg := registry.New()
	reg.MustRegister(tool.Func("blob", "Blob", func(_ context.Context, in blobIn) (string, error) {
		return "", &tool.Error{Code: tool.CodeToolError, Message: strings.Repeat("<", 2<<20), Err: errors.New(cause)}
	}))
	rewrite := extension.Func("rewrite", extension.PriorityPolicy, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			req.Call.Args = bytes.Replace(req.Call.Args, []byte("\x7f"), []byte("<"), 1)
			return next(ctx, req)
		}
	})
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	tr, err := audit.Open(path)
	require.NoError(t, err)
	ex := executor.MustNew(reg, executor.WithExtensions(tr, rewrite))
	args, err := json.Marshal(blobIn{S: strings.Repeat("\x7f", executor.DefaultMaxArgBytes-16)})
	require.NoError(t, err)
	require.LessOrEqual(t, len(args), executor.DefaultMaxArgBytes)
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "blob", Args: args})
	require.NotNil(t, res)
	require.NotNil(t, res.Error)
	require.Equal(t, tool.CodeToolError, res.Error.Code)
	require.NoError(t, tr.Close())

	_, err = audit.Verify(path)
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.Len(t, lines, 2)
	assert.Greater(t, len(lines[1]), 10<<20, "the outcome is as large as the defaults allow")
	for _, l := range lines {
		assert.Less(t, len(l), audit.MaxLineBytes/4)
		// (Contains, not assert.NotContains: a failure would print megabytes.)
		assert.False(t, strings.Contains(l, `"omitted"`), "nothing was left out")
		assert.False(t, strings.Contains(l, "CAUSECAUSE"), "the error's cause is not recorded")
	}
	var out audit.Record
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &out))
	assert.InDelta(t, 1<<20, len(out.Error), 100, "the message, at the executor's cap")
	assert.NotEmpty(t, out.Args, "the rewritten arguments")
}
