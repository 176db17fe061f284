package cache_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// inDir is a tool that runs in a directory of its own (a Workdir method,
// as mcptool's stdio servers and shell commands have) and reads or writes
// the absolute paths it is given there, as a filesystem MCP server does.
type inDir struct {
	tool.Tool
	dir string
}

func (t *inDir) Workdir(json.RawMessage) string { return t.dir }

// fsTool is a stand-in filesystem server's tool: fs_read reads the path
// it is given, fs_write writes content to it.
func fsTool(name, dir string, opts ...tool.Option) tool.Tool {
	return &inDir{dir: dir, Tool: tool.New(name, "A filesystem server's "+name, func(_ context.Context, c tool.Call) (*tool.Result, error) {
		var in struct{ Path, Content string }
		if err := json.Unmarshal(c.Args, &in); err != nil {
			return nil, err
		}
		text := func(s string) *tool.Result { return &tool.Result{Content: []tool.Content{tool.TextContent(s)}} }
		if name == "fs_write" {
			return text("written"), os.WriteFile(in.Path, []byte(in.Content), 0o644)
		}
		b, err := os.ReadFile(in.Path)
		return text(string(b)), err
	}, opts...)}
}

// A tool's Workdir is where it takes relative paths from, not a bound on
// what it writes or reads: a filesystem MCP server run in its own
// directory (srv) writes and reads the absolute paths it is given. A write
// dropped only the results of its Workdir and of places inside or around
// it, so its write to the data workspace left read_file's cached content
// there, served for the TTL; and its read of a file there was kept when
// write_file changed that file. A tool that names no workspace now counts
// as naming no place: its write drops every result, and its reads are
// dropped by every write.
func TestAttackS20RWriteOutsideItsWorkdirLeavesAStaleRead(t *testing.T) {
	data, srv := t.TempDir(), t.TempDir()
	notes := filepath.Join(data, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("v1"), 0o644))
	ws, err := sandbox.OpenWorkspace(data)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	reg.MustRegister(fsTool("fs_write", srv), fsTool("fs_read", srv, tool.ReadOnly()))
	ex := executor.MustNew(reg, executor.WithExtensions(cache.New()))
	do := func(name string, args any) *tool.Result {
		raw, err := json.Marshal(args)
		require.NoError(t, err)
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: raw, Principal: tool.Principal{ID: "alice"}})
		require.NoError(t, err, "%s %s", name, raw)
		return res
	}
	readFile := func() string { return do("read_file", map[string]string{"path": "notes.txt"}).Text() }
	fsRead := func() string { return do("fs_read", map[string]string{"path": notes}).Text() }

	require.Equal(t, "v1", readFile())
	require.Equal(t, "v1", fsRead())
	require.Equal(t, cache.MetaHit, do("read_file", map[string]string{"path": "notes.txt"}).Metadata[cache.MetaKey], "read_file is cached")

	do("fs_write", map[string]string{"path": notes, "content": "v2"})
	assert.Equal(t, "v2", readFile(), "the server's write outside its directory left read_file's old result cached")

	require.Equal(t, "v2", fsRead())
	do("write_file", map[string]string{"path": "notes.txt", "content": "v3"})
	assert.Equal(t, "v3", fsRead(), "write_file left the server's cached read of the file it changed")
}

// With executor.WithDetach, a Go function that ignores its context is
// left running at its deadline: the call returns (timed out, metadata
// backend_still_running) and the function writes later. The cache dropped
// its results when the call returned, before the write; a read then kept
// the old content, served for the TTL after the write landed. A write
// still running keeps the cache from keeping results it may change.
func TestAttackS20RWriteStillRunningAfterItsDeadline(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("v1"), 0o644))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	release, done := make(chan struct{}), make(chan struct{})
	var once sync.Once
	let := func() { once.Do(func() { close(release) }) }
	t.Cleanup(func() { let(); <-done })
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	reg.MustRegister(tool.Func("stamp", "Stamp the notes", func(context.Context, struct{}) (string, error) {
		defer close(done)
		<-release // ignores its context
		return "stamped", os.WriteFile(notes, []byte("stamped"), 0o644)
	}))
	ex := executor.MustNew(reg, executor.WithDetach(), executor.WithExtensions(cache.New()))
	read := func() *tool.Result {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)})
		require.NoError(t, err)
		return res
	}
	require.Equal(t, "v1", read().Text())

	res, _ := ex.Execute(context.Background(), tool.Call{ID: "s", Name: "stamp", Args: json.RawMessage(`{}`), Timeout: 50 * time.Millisecond})
	require.NotNil(t, res.Error)
	require.Equal(t, tool.CodeTimeout, res.Error.Code)
	require.Equal(t, true, res.Metadata[tool.MetaStillRunning], "the backend is still running")

	require.Equal(t, "v1", read().Text(), "not written yet")
	let()
	<-done
	assert.Equal(t, "stamped", read().Text(), "the result read before the late write landed was kept")
}
