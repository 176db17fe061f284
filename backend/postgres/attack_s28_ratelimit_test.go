package postgres_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
)

// 48 takers on six instances (each its own pool, so as many connections)
// take from one hot tool bucket (40 a day) and a bucket of their own
// principal's (1000 a day), naming the two in either order. Exactly 40 are
// granted (none more, whatever the database left unanswered), and only
// those took from a principal's bucket (all or none).
func TestAttackS28ConcurrentTakersNeverPassTheLimit(t *testing.T) {
	dsn := database(t)
	ctx := within(t, 2*time.Minute)
	var stores []*postgres.Stores
	for range 6 {
		s := postgres.New(newPool(t, dsn))
		t.Cleanup(s.Close)
		stores = append(stores, s)
	}
	const burst = 40
	hot := ratelimit.Bucket{Key: "tool/pay", Rate: ratelimit.Per(burst, 24*time.Hour)}
	principals := []string{"principal/5:alice", "principal/3:bob", "principal/5:carol"}
	var grants, errs atomic.Int64
	var lastErr atomic.Value
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range 48 {
		s := stores[g%len(stores)]
		own := ratelimit.Bucket{Key: principals[g%len(principals)], Rate: ratelimit.Per(1000, 24*time.Hour)}
		wg.Go(func() {
			<-start
			for i := range 25 {
				buckets := []ratelimit.Bucket{own, hot}
				if (g+i)%2 == 0 {
					buckets = []ratelimit.Bucket{hot, own}
				}
				got, err := s.RateLimits.Take(ctx, buckets)
				switch {
				case err != nil:
					errs.Add(1)
					lastErr.Store(err.Error())
				case got.OK:
					grants.Add(1)
				}
			}
		})
	}
	close(start)
	wg.Wait()
	// A take the database did not answer within 5 s (this machine loaded)
	// is refused: never a grant, and the rest still fill the bucket.
	t.Logf("%d takes refused unanswered (last: %v)", errs.Load(), lastErr.Load())
	require.Less(t, errs.Load(), int64(48*25-burst), "too few takes answered to fill the bucket")
	assert.LessOrEqual(t, grants.Load(), int64(burst), "grants of a %d-a-day bucket", burst)
	// Exactly the limit, unless a refused take's commit went through.
	assert.GreaterOrEqual(t, grants.Load(), int64(burst)-errs.Load(), "grants of a %d-a-day bucket", burst)

	pool := newPool(t, dsn)
	var taken float64
	for _, k := range principals {
		var tokens float64
		err := pool.QueryRow(ctx, `SELECT tokens FROM toolbelt_ratelimit WHERE key = $1`, k).Scan(&tokens)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		require.NoError(t, err)
		taken += 1000 - tokens
	}
	// The principals' buckets refill at 1000 a day, about 0.01 a second
	// each: what this test's seconds give back is well under one. A take
	// whose commit the database made as its deadline passed took its
	// tokens and was refused: at most one each.
	assert.GreaterOrEqual(t, taken, float64(grants.Load())-0.9, "a grant took nothing from its principal's bucket")
	assert.LessOrEqual(t, taken, float64(grants.Load()+errs.Load())+0.1, "tokens taken from the principals' buckets without a grant")
}

// Keys differ by case, by Unicode normalisation (é as one character or
// as e and a combining accent), by LIKE's wildcards or by a trailing
// space: each is a bucket of its own, never another's, whatever the
// database's collation calls equal or orders together.
func TestAttackS28KeysThatLookAlikeAreOtherBuckets(t *testing.T) {
	dsn := database(t)
	s := postgres.New(newPool(t, dsn))
	t.Cleanup(s.Close)
	ctx := within(t, time.Minute)
	keys := []string{"principal/alice", "principal/Alice", "principal/ALICE", "principal/al\u00e9", "principal/ale\u0301",
		"principal/al%", "principal/al_ce", "principal/alice ", `principal/alice\`, "principal/alice\u200b"}
	for _, k := range keys {
		g, err := s.RateLimits.Take(ctx, []ratelimit.Bucket{{Key: k, Rate: ratelimit.Per(1, 24*time.Hour)}})
		require.NoError(t, err, "%q", k)
		assert.True(t, g.OK, "%q shares another key's bucket", k)
	}
	// And all of them at once, in one call: none is the same row twice.
	var all []ratelimit.Bucket
	for _, k := range keys {
		all = append(all, ratelimit.Bucket{Key: k + "/2", Rate: ratelimit.Per(1, 24*time.Hour)})
	}
	g, err := s.RateLimits.Take(ctx, all)
	require.NoError(t, err)
	assert.True(t, g.OK)
}
