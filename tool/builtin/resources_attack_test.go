package builtin_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// gatedTool is a built-in tool that, once the executor lets a call run,
// says so on entered and waits for release before running it: a call held
// there holds its locks.
type gatedTool struct {
	inner   tool.Tool
	entered chan string
	release chan struct{}
}

func gate(inner tool.Tool) *gatedTool {
	return &gatedTool{inner: inner, entered: make(chan string, 4), release: make(chan struct{})}
}

func (g *gatedTool) Spec() tool.Spec { return g.inner.Spec() }

func (g *gatedTool) Resources(args json.RawMessage) []tool.Resource {
	return g.inner.(tool.ResourceDeclarer).Resources(args)
}

func (g *gatedTool) Run(ctx context.Context, call tool.Call) (*tool.Result, error) {
	g.entered <- call.ID
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.inner.Run(ctx, call)
}

func pathArgs(t *testing.T, path, content string) json.RawMessage {
	args := map[string]string{"path": path}
	if content != "" {
		args["content"] = content
	}
	b, err := json.Marshal(args)
	require.NoError(t, err)
	return b
}

// TestOneFileTwoNamesTwoWriters: two writes of one file, named two ways
// (./a, dir/../a, a/, its absolute path, a symlink to it, a path through a
// symlinked directory), must not run at once (doc.go: the executor
// serialises a write with other calls on the same file). The first write
// is held inside its backend; the second, under
// WithConflictPolicy(Refuse), must be refused with a conflict instead of
// running. It guards fileKey's resolution through the workspace
// (symlinks, absolute paths): keyed on the path as written, the pairs with
// a link or an absolute path both run.
func TestOneFileTwoNamesTwoWriters(t *testing.T) {
	ws, err := sandbox.OpenWorkspace(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	root := ws.Dir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("old"), 0o644))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(root, "a-link")))
	require.NoError(t, os.Symlink("../a.txt", filepath.Join(root, "sub", "a-link")))
	require.NoError(t, os.Symlink("sub", filepath.Join(root, "sub-link")))

	g := gate(builtin.WriteFile(ws))
	reg := registry.New()
	require.NoError(t, reg.Register(g))
	ex := executor.MustNew(reg, executor.WithConflictPolicy(executor.Refuse))

	for _, p := range [][2]string{
		{"a.txt", "./a.txt"},
		{"a.txt", "sub/../a.txt"},
		{"a.txt", "a.txt/"},
		{"a.txt", root + "/a.txt"},
		{"a.txt", root + "//sub/../a.txt"},
		{"a.txt", "a-link"},
		{"a.txt", "sub/a-link"},
		{"a.txt", "sub-link/a-link"},
		{"sub/new.txt", "sub-link/new.txt"},
	} {
		t.Run(p[0]+" vs "+p[1], func(t *testing.T) {
			first, second := make(chan *tool.Result, 1), make(chan *tool.Result, 1)
			go func() {
				res, _ := ex.Execute(context.Background(), tool.Call{ID: "first", Name: "write_file", Args: pathArgs(t, p[0], "first")})
				first <- res
			}()
			require.Equal(t, "first", <-g.entered)
			go func() {
				res, _ := ex.Execute(context.Background(), tool.Call{ID: "second", Name: "write_file", Args: pathArgs(t, p[1], "second")})
				second <- res
			}()
			var res *tool.Result
			overlapped := false
			select {
			case <-g.entered: // the second write runs while the first holds the file
				overlapped = true
				g.release <- struct{}{}
				g.release <- struct{}{}
				res = <-second
			case res = <-second:
				g.release <- struct{}{}
			}
			assert.True(t, (<-first).OK())
			assert.False(t, overlapped, "two writers of one file ran at once: %q and %q", p[0], p[1])
			assert.Equal(t, tool.CodeConflict, code(res), "the second write was not refused as a conflict: %v", res.Err())
		})
	}
}

// TestAttackWritersOfALinkDeletedInBetween: a call's keys are taken when it
// is submitted, from what its path names then; an earlier call on the
// same key may change that before it runs. delete_file "l" (l a symlink
// to a.txt) runs; write_file "l" is submitted behind it, keyed as a.txt;
// the delete removes the link, so the write creates a regular file l.
// Another write_file "l" submitted then is keyed as l: the two writers of
// l must not run at once.
func TestAttackWritersOfALinkDeletedInBetween(t *testing.T) {
	ws, err := sandbox.OpenWorkspace(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	root := ws.Dir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("old"), 0o644))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(root, "l")))

	del, write := gate(builtin.DeleteFile(ws)), gate(builtin.WriteFile(ws))
	reg := registry.New()
	require.NoError(t, reg.Register(del, write))
	ex := executor.MustNew(reg)
	queued, stop := ex.Subscribe(executor.EventFilter{Kinds: []tool.EventKind{tool.EventQueued}})
	defer stop()
	ctx := context.Background()

	deleted := make(chan *tool.Result, 1)
	go func() {
		res, _ := ex.Execute(ctx, tool.Call{ID: "delete", Name: "delete_file", Args: pathArgs(t, "l", "")})
		deleted <- res
	}()
	select {
	case <-del.entered:
	case res := <-deleted:
		t.Fatalf("the delete did not reach its backend: %v", res.Err())
	}
	w1, err := ex.Submit(ctx, tool.Call{ID: "w1", Name: "write_file", Args: pathArgs(t, "l", "one")})
	require.NoError(t, err)
	require.Equal(t, "w1", (<-queued).CallID, "the first write waits behind the delete")
	del.release <- struct{}{}
	require.True(t, (<-deleted).OK())
	require.Equal(t, "w1", <-write.entered)

	w2, err := ex.Submit(ctx, tool.Call{ID: "w2", Name: "write_file", Args: pathArgs(t, "l", "two")})
	require.NoError(t, err)
	overlapped := false
	select {
	case <-write.entered:
		overlapped = true
	case ev := <-queued:
		assert.Equal(t, "w2", ev.CallID)
	}
	write.release <- struct{}{}
	if !overlapped {
		require.Equal(t, "w2", <-write.entered)
	}
	write.release <- struct{}{}
	for _, id := range []executor.JobID{w1, w2} {
		_, err := ex.Wait(ctx, id)
		assert.NoError(t, err)
	}
	assert.False(t, overlapped, "two writes of l ran at once: the first was keyed by the link's old target")
	got, err := os.ReadFile(filepath.Join(root, "l"))
	require.NoError(t, err)
	assert.Equal(t, "two", string(got), "the writes ran in submission order")
}
