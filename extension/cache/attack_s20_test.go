package cache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// One cache serving two executors, each with a read-only shell command
// ("cat notes.txt") run by a sandbox engine on a workspace of its own:
// the same call reads a different file in each. The key held the
// workspace only of tools with a Workspace method (the built-in file
// tools); a shell command has none, so the second workspace's caller was
// served the first's file. The key now holds the directory a tool says it
// runs in (Workdir, as shell.Command and the policy extension read it).
// Only the stand-in cat is on PATH.
func TestAttackS20SharedCacheServesAnotherWorkspacesCommand(t *testing.T) {
	bin, home := t.TempDir(), t.TempDir()
	cat, err := osexec.LookPath("cat")
	if err != nil {
		t.Skip("cat is not installed")
	}
	real, err := filepath.EvalSymlinks(cat)
	require.NoError(t, err)
	require.NoError(t, os.Symlink(real, filepath.Join(bin, "cat")))

	c := cache.New()
	var exs []*executor.Executor
	for _, content := range []string{"tenant A secret", "tenant B notes"} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(content), 0o644))
		sb, err := sandbox.New("process", sandbox.WithWorkspace(dir))
		require.NoError(t, err)
		notes, err := shell.NewCommand("notes", "Show the project's notes", sb, []string{"cat", "notes.txt"},
			shell.WithEnv("PATH="+bin, "HOME="+home), shell.WithRisk(tool.RiskLow),
			shell.WithSpec(func(s *tool.Spec) { s.Annotations.ReadOnly, s.Annotations.Idempotent = true, true }))
		require.NoError(t, err)
		reg := registry.New()
		reg.MustRegister(notes)
		exs = append(exs, executor.MustNew(reg, executor.WithExtensions(c)))
	}
	read := func(ex *executor.Executor) *tool.Result {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "notes", Args: json.RawMessage(`{}`)})
		require.NoError(t, err)
		return res
	}
	require.Equal(t, "tenant A secret", read(exs[0]).Text())
	b := read(exs[1])
	assert.Equal(t, "tenant B notes", b.Text(), "tenant B was served tenant A's file from the cache")
	assert.Equal(t, cache.MetaMiss, b.Metadata[cache.MetaKey])
	assert.Equal(t, cache.MetaHit, read(exs[0]).Metadata[cache.MetaKey], "each workspace still has its own hits")
}

// A cached read outlived the write that changed what it read: an agent
// that wrote a file (write_file, edit_file, delete_file, or any tool that
// is not read-only, such as a Go function writing it or bash) and read it
// back was served the old content for the cache's TTL (5 minutes), also
// another principal's read of the file it had just rewritten. A call of a
// tool that is not read-only now drops the cached results it may have
// changed: those of its workspace (or directory) and of tools that name
// none; a tool that names no place drops them all. Another workspace's
// results are kept.
func TestAttackS20ReadAfterWriteServesTheOldFile(t *testing.T) {
	c := cache.New()
	var exs []*executor.Executor
	for _, content := range []string{"v1", "other workspace"} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(content), 0o644))
		ws, err := sandbox.OpenWorkspace(dir)
		require.NoError(t, err)
		t.Cleanup(func() { ws.Close() })
		reg := registry.New()
		require.NoError(t, reg.Register(builtin.Files(ws)...))
		reg.MustRegister(tool.Func("stamp", "Stamp the notes", func(context.Context, struct{}) (string, error) {
			return "stamped", os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("stamped"), 0o644)
		}, tool.WithRisk(tool.RiskMedium)))
		exs = append(exs, executor.MustNew(reg, executor.WithExtensions(c)))
	}
	alice := tool.Principal{ID: "alice", Tenant: "acme"}
	bob := tool.Principal{ID: "bob", Tenant: "acme"}
	do := func(ex *executor.Executor, p tool.Principal, name, args string) *tool.Result {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: json.RawMessage(args), Principal: p})
		require.NoError(t, err, "%s %s", name, args)
		return res
	}
	read := func(p tool.Principal) string {
		return do(exs[0], p, "read_file", `{"path":"notes.txt"}`).Text()
	}
	require.Equal(t, "v1", read(alice))
	require.Equal(t, "v1", read(bob))
	require.Equal(t, "other workspace", do(exs[1], alice, "read_file", `{"path":"notes.txt"}`).Text())

	do(exs[0], alice, "write_file", `{"path":"notes.txt","content":"v2"}`)
	assert.Equal(t, "v2", read(alice), "alice read back her write: served the old file")
	assert.Equal(t, "v2", read(bob), "bob was served the file alice had rewritten")

	do(exs[0], alice, "edit_file", `{"path":"notes.txt","old_string":"v2","new_string":"v3"}`)
	assert.Equal(t, "v3", read(alice), "after edit_file")

	do(exs[0], alice, "stamp", `{}`) // names no workspace
	assert.Equal(t, "stamped", read(alice), "after a tool that is not read-only and names no workspace")

	other := do(exs[1], alice, "read_file", `{"path":"notes.txt"}`)
	assert.Equal(t, "other workspace", other.Text())
	do(exs[0], alice, "write_file", `{"path":"notes.txt","content":"v4"}`)
	other = do(exs[1], alice, "read_file", `{"path":"notes.txt"}`)
	assert.Equal(t, cache.MetaHit, other.Metadata[cache.MetaKey], "a write in one workspace keeps another's results")

	do(exs[0], alice, "delete_file", `{"path":"notes.txt"}`)
	res, err := exs[0].Execute(context.Background(), tool.Call{ID: "c", Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`), Principal: alice})
	assert.Error(t, err, "the deleted file was served from the cache: %s", res.Text())
}

// A read under way when a write comes keeps nothing, and a read begun
// after the write does not wait for the one begun before it (whose answer
// may predate the write): it runs the backend itself.
func TestReadUnderWayWhenAWriteComesIsNotKept(t *testing.T) {
	var value atomic.Value
	value.Store("old")
	entered, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int64
	reg := registry.New()
	reg.MustRegister(
		tool.Func("peek", "Read the value", func(context.Context, struct{}) (string, error) {
			v := value.Load().(string)
			if runs.Add(1) == 1 {
				close(entered)
				<-release
			}
			return v, nil
		}, tool.ReadOnly()),
		tool.Func("poke", "Set the value", func(context.Context, struct{}) (string, error) {
			value.Store("new")
			return "ok", nil
		}))
	ex := executor.MustNew(reg, executor.WithExtensions(cache.New()))
	run := func(name string) *tool.Result {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "alice"}})
		assert.NoError(t, err)
		return res
	}
	first, after := make(chan *tool.Result, 1), make(chan *tool.Result, 1)
	go func() { first <- run("peek") }()
	<-entered
	run("poke")
	go func() { after <- run("peek") }()
	var second *tool.Result
	select {
	case second = <-after:
	case <-time.After(10 * time.Second): // it waits for the first, which waits for release
	}
	close(release)
	if second == nil {
		second = <-after
		t.Error("a read begun after the write waited for the one begun before it")
	}
	assert.Equal(t, "new", second.Text(), "a read begun after the write was given the answer of one begun before it")
	assert.Equal(t, "old", (<-first).Text())
	third := run("peek")
	assert.Equal(t, "new", third.Text(), "the read under way at the write was kept")
	assert.Equal(t, cache.MetaHit, third.Metadata[cache.MetaKey], "the read begun after the write is kept")
}

// Go's JSON decoder turns every unpaired surrogate escape ("\ud800",
// "\udbff") and every byte that is not UTF-8 into U+FFFD, so the
// canonical form, and the key, of all of them was one: a call with
// "\udbff" was served the result of "\ud800". A tool given the arguments
// as they came (an MCP or HTTP tool forwards them; JavaScript and Python
// keep such strings apart) answers each differently. Such arguments are
// now not cached.
func TestAttackS20UnpairedSurrogatesShareAKey(t *testing.T) {
	var runs atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.New("lookup", "Look a key up", func(_ context.Context, c tool.Call) (*tool.Result, error) {
		runs.Add(1)
		return &tool.Result{Content: []tool.Content{tool.TextContent("value of " + string(c.Args))}}, nil
	}, tool.ReadOnly()))
	ex := executor.MustNew(reg, executor.WithExtensions(cache.New()))
	keys := []string{`{"k":"\ud800"}`, `{"k":"\udbff"}`, `{"k":"\udc00x"}`, "{\"k\":\"\xff\"}", "{\"k\":\"\xfe\"}", `{"k":"\ufffd"}`}
	for _, args := range keys {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "lookup", Args: json.RawMessage(args), Principal: tool.Principal{ID: "alice"}})
		require.NoError(t, err)
		assert.Equal(t, "value of "+args, res.Text(), "served another key's result")
	}
	assert.Equal(t, int64(len(keys)), runs.Load())

	for _, ok := range []string{`"\ud83d\ude00"`, `"😀"`, `"\\ud800"`, `"\ufffd"`} {
		_, err := cache.CanonicalJSON([]byte(ok))
		assert.NoError(t, err, "%s is cacheable", ok)
	}
	for _, bad := range []string{`"\ud800"`, `"\uDC00"`, `"\ud83d\u0041"`, `"\ud83d`, "\"\xff\""} {
		_, err := cache.CanonicalJSON([]byte(bad))
		assert.Error(t, err, "%s", bad)
	}
}

// One cache serving an executor per tenant, each with its own "balance"
// tool (a Go function over that tenant's accounts), and principals that
// name no tenant, since each executor is one tenant's: alice of acme and
// alice of globex made the same key (name, version, principal,
// arguments), and globex's alice was served acme's alice's balance, which
// globex's tool never produced. The key now holds the tool itself: a
// result is served only for the tool that produced it. The same tool
// registered with two executors still shares its results.
func TestAttackS20SharedCacheServesAnotherExecutorsTool(t *testing.T) {
	c := cache.New()
	balance := func(tenant string) tool.Tool {
		return tool.Func("balance", "The caller's balance", func(ctx context.Context, _ struct{}) (string, error) {
			p, _ := tool.PrincipalFrom(ctx)
			return tenant + " balance of " + p.ID, nil
		}, tool.ReadOnly())
	}
	executorWith := func(tools ...tool.Tool) *executor.Executor {
		reg := registry.New()
		require.NoError(t, reg.Register(tools...))
		return executor.MustNew(reg, executor.WithExtensions(c))
	}
	ask := func(ex *executor.Executor) *tool.Result {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "balance", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "alice"}})
		require.NoError(t, err)
		return res
	}
	acme, globex := executorWith(balance("acme")), executorWith(balance("globex"))
	require.Equal(t, "acme balance of alice", ask(acme).Text())
	res := ask(globex)
	assert.Equal(t, "globex balance of alice", res.Text(), "globex was served acme's result")
	assert.Equal(t, cache.MetaMiss, res.Metadata[cache.MetaKey])
	assert.Equal(t, cache.MetaHit, ask(acme).Metadata[cache.MetaKey])

	shared := balance("both")
	one, two := executorWith(shared), executorWith(shared)
	require.Equal(t, cache.MetaMiss, ask(one).Metadata[cache.MetaKey])
	assert.Equal(t, cache.MetaHit, ask(two).Metadata[cache.MetaKey], "one tool in two executors shares its results")
}

// The governance policy, in a mode listed in requires_approval_in_modes,
// demands approval (approval.RequiredKey); with no approval extension the
// executor refuses such a call just before its backend, inside the cache.
// A call cached in normal mode was served from the cache after the
// operator switched to alert: the demand was never seen. A call an
// extension demands approval for is not served from the cache.
func TestAttackS20CachedHitSkipsTheModesApprovalDemand(t *testing.T) {
	p, err := policy.Parse([]byte(`
global: {mode: normal}
tools:
  payroll: {requires_approval_in_modes: [alert]}
`))
	require.NoError(t, err)
	var runs atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.Func("payroll", "This month's payroll", func(context.Context, struct{}) (string, error) {
		runs.Add(1)
		return "alice 120000", nil
	}, tool.ReadOnly()))
	ex := executor.MustNew(reg, executor.WithExtensions(p, cache.New()))
	ask := func() *tool.Result {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "payroll", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "alice"}})
		return res
	}
	require.True(t, ask().OK())
	require.NoError(t, p.SetMode(tool.ModeAlert))
	res := ask()
	if assert.NotNil(t, res.Error, "served from the cache in a mode that requires approval: %s", res.Text()) {
		assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
	}
	assert.Equal(t, int64(1), runs.Load())

	require.NoError(t, p.SetMode(tool.ModeNormal))
	assert.Equal(t, cache.MetaHit, ask().Metadata[cache.MetaKey], "back in normal mode the result is served again")
}

// A shell tool's result keeps each stream whole in its metadata (up to the
// sandbox's OutputBytes, 1 MiB by default, per stream) and gives the model
// 16 KiB of each as text. The cache's byte bound counted the output and
// the text, not the metadata: with WithMaxBytes(4 MiB), sixteen read-only
// reports of 1 MiB each were all kept, 16 MiB held under a 4 MiB bound
// (1024 entries by default: 2 GiB under the default 64 MiB).
func TestAttackS20MetadataOutgrowsMaxBytes(t *testing.T) {
	const stream = 1 << 20
	report := func(_ context.Context, c tool.Call) (*tool.Result, error) {
		out := strings.Repeat("x", stream-len(c.Args)) + string(c.Args)
		res := &tool.Result{Content: []tool.Content{tool.TextContent(out[:16<<10])}}
		res.SetMeta("stdout", out) // as the shell tool's shell.MetaStdout
		res.SetMeta("stderr", "")
		res.SetMeta("argv", []string{"report", string(c.Args)})
		return res, nil
	}
	reg := registry.New()
	reg.MustRegister(tool.New("report", "Print the day's report", report, tool.ReadOnly()))
	const bound = 4 << 20
	c := cache.New(cache.WithMaxBytes(bound))
	ex := executor.MustNew(reg, executor.WithExtensions(c))
	for day := range 16 {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "report", Args: json.RawMessage(fmt.Sprintf(`{"day":%d}`, day))})
		require.NoError(t, err)
		require.Len(t, res.Metadata["stdout"], stream)
	}
	st := c.Stats()
	assert.LessOrEqual(t, st.Entries*stream, bound, "the cache holds %d entries of %d bytes of metadata each under a bound of %d (it counts %d bytes)", st.Entries, stream, bound, st.Bytes)
	assert.Positive(t, st.Entries, "results under the bound are still cached")
	assert.LessOrEqual(t, st.Bytes, int64(bound))
}
