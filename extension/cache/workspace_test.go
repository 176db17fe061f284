package cache_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/registry/loader"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// One cache serving two executors, each with the built-in file tools on a
// workspace of its own (a tenant each): the same read_file call names a
// different file in each, and one tenant must not be served the other's.
// Before the key held the workspace, tenant B read tenant A's notes.txt.
func TestSharedCacheKeepsWorkspacesApart(t *testing.T) {
	exs := tenantExecutors(t, func(reg *registry.Registry, ws *sandbox.Workspace) error {
		return reg.Register(builtin.Files(ws)...)
	})
	read := func(ex *executor.Executor) *tool.Result {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "read_file", Args: []byte(`{"path":"notes.txt"}`)})
		require.NoError(t, err)
		require.NotEmpty(t, res.Content)
		return res
	}
	a := read(exs[0])
	assert.Equal(t, "tenant A secret", a.Content[0].Text)
	b := read(exs[1])
	assert.Equal(t, "tenant B notes", b.Content[0].Text, "tenant B was served tenant A's file from the cache")
	assert.Equal(t, cache.MetaMiss, b.Metadata[cache.MetaKey])
	again := read(exs[0])
	assert.Equal(t, "tenant A secret", again.Content[0].Text)
	assert.Equal(t, cache.MetaHit, again.Metadata[cache.MetaKey], "each workspace still has its own hits")
}

// The same, with each tenant's file tool defined by a tool file: a go tool
// "cat_file" whose function is the built-in read_file of the tenant's
// workspace. The loader's wrapper hid the workspace (it has only Unwrap),
// so the key held none and tenant B was served tenant A's file.
func TestSharedCacheKeepsWorkspacesApartBehindAToolFile(t *testing.T) {
	exs := tenantExecutors(t, func(reg *registry.Registry, ws *sandbox.Workspace) error {
		l := loader.Loader{Funcs: loader.FuncTable(builtin.ReadFile(ws))}
		return l.Load(reg, strings.NewReader(`
tools:
  - name: cat_file
    description: Read a file of the project
    type: go
    implementation: {function: read_file}
`), "tools.yaml")
	})
	read := func(ex *executor.Executor) *tool.Result {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "cat_file", Args: []byte(`{"path":"notes.txt"}`)})
		require.NoError(t, err)
		require.NotEmpty(t, res.Content, "%+v", res.Error)
		return res
	}
	a := read(exs[0])
	assert.Equal(t, "tenant A secret", a.Content[0].Text)
	b := read(exs[1])
	assert.Equal(t, "tenant B notes", b.Content[0].Text, "tenant B was served tenant A's file from the cache")
	assert.Equal(t, cache.MetaMiss, b.Metadata[cache.MetaKey])
}

// tenantExecutors returns two executors sharing one cache, each over a
// workspace of its own whose notes.txt holds that tenant's text, with
// the tools register puts in its registry.
func tenantExecutors(t *testing.T, register func(*registry.Registry, *sandbox.Workspace) error) []*executor.Executor {
	c := cache.New()
	var exs []*executor.Executor
	for _, content := range []string{"tenant A secret", "tenant B notes"} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(content), 0o644))
		ws, err := sandbox.OpenWorkspace(dir)
		require.NoError(t, err)
		t.Cleanup(func() { ws.Close() })
		reg := registry.New()
		require.NoError(t, register(reg, ws))
		exs = append(exs, executor.MustNew(reg, executor.WithExtensions(c)))
	}
	return exs
}
