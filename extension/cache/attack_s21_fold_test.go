package cache_test

import (
	"context"
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

// On a file system that compares names loosely (macOS, Windows), Proj and
// proj are one directory: a workspace opened under each spelling is one
// place. A write through one left the other's cached read standing, and
// it served the old file (the places were compared as written). Here, on
// a file system that tells them apart, the test stands for that one: a
// write through PROJ now drops what was read through proj, as it must
// there; keys stay exact, so nothing is ever served across the spellings.
func TestAttackS21WriteDropsReadsOfAnotherSpellingOfItsPlace(t *testing.T) {
	root := t.TempDir()
	c := cache.New()
	newEx := func(dir string) *executor.Executor {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("v1"), 0o644))
		ws, err := sandbox.OpenWorkspace(dir)
		require.NoError(t, err)
		reg := registry.New()
		require.NoError(t, reg.Register(builtin.Files(ws)...))
		return executor.MustNew(reg, executor.WithExtensions(c))
	}
	lower, upper := newEx(filepath.Join(root, "proj")), newEx(filepath.Join(root, "PROJ"))
	ctx := context.Background()
	read := func() *tool.Result {
		res, err := lower.Execute(ctx, tool.Call{ID: "r", Name: "read_file", Args: []byte(`{"path":"notes.txt"}`)})
		require.NoError(t, err)
		return res
	}
	read()
	require.Equal(t, cache.MetaHit, read().Metadata[cache.MetaKey])

	_, err := upper.Execute(ctx, tool.Call{ID: "w", Name: "write_file", Args: []byte(`{"path":"notes.txt","content":"v2"}`)})
	require.NoError(t, err)
	assert.Equal(t, cache.MetaMiss, read().Metadata[cache.MetaKey], "a write through another spelling of the place left the cached read standing")
}
