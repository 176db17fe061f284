package cache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

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
