package postgres_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/tool"
)

// killSessions terminates another session of the database, one at a time
// at random (as a crashed backend or a proxy cutting connections would),
// over and over until the returned func is called; it returns how many it
// killed.
func killSessions(t *testing.T, admin *pgxpool.Pool) (stop func() int64) {
	t.Helper()
	var killed atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			var n int64
			if err := admin.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM (SELECT pid FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
				ORDER BY random() LIMIT 1) AS victim`).Scan(&n); err == nil {
				killed.Add(n)
			}
			// Not a synchronisation: room for the writers to get some
			// statements through between the kills.
			time.Sleep(20 * time.Millisecond)
		}
	})
	return func() int64 {
		close(done)
		wg.Wait()
		return killed.Load()
	}
}

// Connections are cut (pg_terminate_backend) while 8 writers append to
// the shared audit chain, records hold what a model wrote (a NUL, a lone
// surrogate, bytes that are not UTF-8), calls take from a bucket and
// records go to history. Nothing is lost without a word: every Write that
// returned nil is in the chain, which verifies (no fork, no gap); a
// history record is stored or counted as dropped; no grant beyond the
// limit, and every grant is in the bucket.
func TestAttackS28NothingLostWhenConnectionsAreCut(t *testing.T) {
	dsn := database(t)
	key := []byte("0123456789abcdef0123456789abcdef")
	admin := newPool(t, dsn)
	var stores []*postgres.Stores
	var trails []*audit.Trail
	for range 2 {
		s := postgres.New(newPool(t, dsn), postgres.WithJobs(postgres.JobsConfig{Workers: postgres.NoWorkers}))
		t.Cleanup(s.Close)
		tr, err := audit.NewShared(s.Audit, audit.WithKey(key))
		require.NoError(t, err)
		stores, trails = append(stores, s), append(trails, tr)
	}
	ctx := within(t, 2*time.Minute)
	const burst = 20
	bucket := []ratelimit.Bucket{{Key: "principal/5:alice", Rate: ratelimit.Per(burst, 24*time.Hour)}}

	stop := killSessions(t, admin)
	var (
		mu       sync.Mutex
		acked    []string
		failed   int
		grants   atomic.Int64
		adds     atomic.Int64
		takeErrs atomic.Int64
	)
	var wg sync.WaitGroup
	for w := range 8 {
		s, tr := stores[w%2], trails[w%2]
		wg.Go(func() {
			for i := range 40 {
				id := fmt.Sprintf("w%d-%d", w, i)
				err := tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "x\x00\xff", CallID: id, Principal: "mallory\xfe",
					Args: json.RawMessage(`{"a":"\u0000\ud800"}`)})
				mu.Lock()
				if err == nil {
					acked = append(acked, id)
				} else {
					failed++
				}
				mu.Unlock()
				s.History.Add(ctx, executor.Record{CallID: id, Tool: "t", Tenant: "acme", Status: tool.StatusSucceeded, StartedAt: time.Now()})
				adds.Add(1)
				if i%4 == 0 {
					g, err := s.RateLimits.Take(ctx, bucket)
					if err != nil {
						takeErrs.Add(1)
					} else if g.OK {
						grants.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	killed := stop()
	t.Logf("sessions killed: %d; audit writes failed: %d, acknowledged: %d; takes failed: %d", killed, failed, len(acked), takeErrs.Load())

	// Read back over connections made after the kills.
	pool := newPool(t, dsn)
	fresh := postgres.New(pool, postgres.WithJobs(postgres.JobsConfig{Workers: postgres.NoWorkers}))
	t.Cleanup(fresh.Close)
	var buf bytes.Buffer
	require.NoError(t, fresh.Audit.WriteTo(ctx, &buf))
	rep, err := audit.VerifyReader(bytes.NewReader(buf.Bytes()), audit.WithKey(key))
	require.NoError(t, err, "the chain is broken after connections were cut")
	inChain := map[string]bool{}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r audit.Record
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		assert.False(t, inChain[r.CallID], "record %s is in the chain twice", r.CallID)
		inChain[r.CallID] = true
	}
	for _, id := range acked {
		assert.True(t, inChain[id], "the write of %s was acknowledged and is not in the chain", id)
	}
	assert.Equal(t, rep.Records, len(inChain))

	recs, err := fresh.History.Query(ctx, executor.HistoryQuery{Tenant: "acme", Limit: 1000})
	require.NoError(t, err)
	var dropped uint64
	for _, s := range stores {
		n, _ := s.History.Dropped()
		dropped += n
	}
	t.Logf("history: %d stored, %d dropped; rate limit: %d granted", len(recs), dropped, grants.Load())
	assert.EqualValues(t, adds.Load(), uint64(len(recs))+dropped, "history records neither stored nor counted as dropped")

	assert.LessOrEqual(t, grants.Load(), int64(burst), "more grants than the limit")
	tokens := float64(burst) // no row: a full bucket
	err = pool.QueryRow(ctx, `SELECT tokens FROM toolbelt_ratelimit WHERE key = $1`, bucket[0].Key).Scan(&tokens)
	if !errors.Is(err, pgx.ErrNoRows) {
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, tokens, float64(burst-grants.Load())+0.1, "a grant the bucket does not hold")
}
