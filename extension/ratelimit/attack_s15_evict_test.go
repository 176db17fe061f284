package ratelimit_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool's limit is shared by every caller ("search" may run twice an hour,
// whoever asks: a paid upstream API's quota). The in-memory store is
// bounded, and at its bound it forgot its least recently used bucket: a
// caller who can name fresh principals (a tenant names its own users)
// filled the store with principal buckets by calling another tool, until
// the shared bucket of "search" was the least recently used one and was
// forgotten, full again mid-hour: the tool's limit reset for everyone. A
// tool's bucket is one per limited tool, so keeping it costs little, and
// forgetting it undoes a limit every caller shares.
func TestAttackS15FreshPrincipalsCannotResetAToolsLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []ratelimit.Option
	}{
		{"spec limit", nil},
		{"PerTool", []ratelimit.Option{ratelimit.PerTool("search", "2/hour")}},
		{"EachTool", []ratelimit.Option{ratelimit.IgnoreSpecLimits(), ratelimit.EachTool("2/hour")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const bound = 100
			f := newFixture(t)
			lim := ratelimit.New(append(tc.opts, ratelimit.PerPrincipal("1000/hour"), ratelimit.WithMaxBuckets(bound))...)
			ex := executor.MustNew(f.reg, executor.WithExtensions(lim))
			ctx := context.Background()
			for range 2 {
				_, err := ex.Execute(ctx, call("search", "acme/alice"))
				require.NoError(t, err)
			}
			_, err := ex.Execute(ctx, call("search", "acme/alice"))
			require.ErrorIs(t, err, tool.ErrRateLimited, "search's two calls this hour are spent")

			for i := range 3 * bound {
				_, _ = ex.Execute(ctx, call("list", "evil/u"+strconv.Itoa(i)))
			}
			assert.LessOrEqual(t, store(lim).Len(), bound+3, "the store stays bounded (the tools' buckets aside)")

			before := f.runs.Load()
			_, err = ex.Execute(ctx, call("search", "evil/u0"))
			assert.ErrorIs(t, err, tool.ErrRateLimited, "search ran a third time this hour: its limit was forgotten")
			assert.Equal(t, before, f.runs.Load())
		})
	}
}
