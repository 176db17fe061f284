package ratelimit_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call takes from several buckets of its caller at once (its principal's,
// its tool+principal's, and since 8bea7e1 those of the tool an alias runs).
// A MemoryStore bounded below that number made room for the call's second
// bucket by forgetting its first, the least recently used: the token was
// taken from a bucket the store no longer held, so the principal's limit
// never counted a call. A store at its bound forgets other callers'
// buckets, never one the call in hand takes from (it holds a few more
// until the next insert instead).
func TestAttackS29StoreDoesNotForgetTheBucketItTakesFrom(t *testing.T) {
	for _, bound := range []int{1, 2} {
		f := newFixture(t)
		lim := ratelimit.New(ratelimit.PerPrincipal("2/hour"), ratelimit.PerToolPrincipal("100/hour"), ratelimit.WithMaxBuckets(bound))
		ex := executor.MustNew(f.reg, executor.WithExtensions(lim))
		ctx := context.Background()
		for range 2 {
			_, err := ex.Execute(ctx, call("fetch", "alice"))
			require.NoError(t, err)
		}
		before := f.runs.Load()
		for _, name := range []string{"fetch", "list", "fetch"} {
			_, err := ex.Execute(ctx, call(name, "alice"))
			assert.ErrorIs(t, err, tool.ErrRateLimited, "bound %d: alice's two calls this hour are spent", bound)
		}
		assert.Equal(t, before, f.runs.Load(), "bound %d: alice ran past her limit", bound)
		assert.LessOrEqual(t, store(lim).Len(), bound+2, "bound %d: the store holds at most the bound and one call's buckets", bound)
	}
}
