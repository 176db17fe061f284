package cache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
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
