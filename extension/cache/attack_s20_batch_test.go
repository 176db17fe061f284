package cache_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// ExecuteBatch promises that calls on one resource run in index order, but
// the cache answered a read before the read reached its place in the lock
// queues: a batch [write_file notes.txt v2, read_file notes.txt] was given
// the cached v1 (found by helper-149; seen failing first). The cache now
// answers only a call whose turn has come (extension.LockQueue.Behind), so
// the read waits for the write and reads what it wrote.
func TestAttackS20BatchReadBehindAWriteIsNotServedFromTheCache(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("v1"), 0o644))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	ex := executor.MustNew(reg, executor.WithExtensions(cache.New()))
	read := tool.Call{ID: "r", Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)}
	res, err := ex.Execute(context.Background(), read)
	require.NoError(t, err)
	require.Equal(t, "v1", res.Text())
	for i := range 20 {
		v := "v" + string(rune('a'+i))
		rs := ex.ExecuteBatch(context.Background(), []tool.Call{
			{ID: "w", Name: "write_file", Args: json.RawMessage(`{"path":"notes.txt","content":"` + v + `"}`)},
			read,
		})
		require.True(t, rs[0].OK(), "%v", rs[0].Error)
		assert.Equal(t, v, rs[1].Text(), "the read after the write in the batch (%s)", rs[1].Metadata[cache.MetaKey])
	}
}
