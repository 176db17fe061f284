package cache_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// One tool and one cache in two executors, one of which holds output to
// 1 KiB: the other's call filled the cache with 10 KiB, and a hit in the
// capped executor returned all of it, past its cap (the executor capped
// only what a backend returned). Seen failing first. Every result now
// passes the executor's cap, a hit's too.
func TestAttackS21HitPassesTheExecutorsOutputCap(t *testing.T) {
	read := tool.Func("read", "The read test tool", func(context.Context, struct{}) (string, error) {
		return strings.Repeat("x", 10<<10), nil
	}, tool.ReadOnly())
	c := cache.New()
	newEx := func(opts ...executor.Option) *executor.Executor {
		reg := registry.New()
		reg.MustRegister(read)
		return executor.MustNew(reg, append(opts, executor.WithExtensions(c))...)
	}
	wide, narrow := newEx(), newEx(executor.WithMaxOutputBytes(1<<10))
	ctx := context.Background()

	res, err := wide.Execute(ctx, tool.Call{ID: "a", Name: "read"})
	require.NoError(t, err)
	require.Len(t, res.Text(), 10<<10)

	res, err = narrow.Execute(ctx, tool.Call{ID: "b", Name: "read"})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(res.Text()), 1<<10, "a cache hit passed the executor's output cap")
	assert.True(t, strings.Contains(res.Text(), "bytes cut"), "the cut is marked as the executor marks it")
	assert.Equal(t, true, res.Metadata[tool.MetaTruncated])

	res, err = wide.Execute(ctx, tool.Call{ID: "c", Name: "read"})
	require.NoError(t, err)
	assert.Len(t, res.Text(), 10<<10, "the cut did not change what the cache keeps")
}
