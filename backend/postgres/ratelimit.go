package postgres

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
)

// rateLimitTimeout bounds one Take or Give: a database that does not
// answer (or a pool with no connection free) refuses the call then,
// rather than holding it for as long as TCP waits.
const rateLimitTimeout = 5 * time.Second

// RateLimitStore is a ratelimit.Store in PostgreSQL: one row per bucket.
// Take locks a call's rows in key order (so two calls never deadlock),
// refills them on the database's clock, and takes from all of them or
// none, in one transaction. A Take or Give the database has not answered
// in 5 seconds fails (the limiter refuses the call as unavailable).
type RateLimitStore struct {
	pool *pgxpool.Pool
}

var _ ratelimit.Store = (*RateLimitStore)(nil)

// Take implements ratelimit.Store.
func (s *RateLimitStore) Take(ctx context.Context, buckets []ratelimit.Bucket) (ratelimit.Grant, error) {
	var g ratelimit.Grant
	err := s.locked(ctx, buckets, func(states []ratelimit.State) ([]ratelimit.State, error) {
		var next []ratelimit.State
		g, next = ratelimit.TakeAll(buckets, states)
		if !g.OK {
			return nil, nil
		}
		return next, nil
	})
	return g, err
}

// Give implements ratelimit.Store.
func (s *RateLimitStore) Give(ctx context.Context, buckets []ratelimit.Bucket) error {
	return s.locked(ctx, buckets, func(states []ratelimit.State) ([]ratelimit.State, error) {
		out := make([]ratelimit.State, len(states))
		for i, b := range buckets {
			out[i] = b.Rate.GiveBack(states[i])
		}
		return out, nil
	})
}

// locked runs fn over the buckets' states, refilled to the database's now,
// with their rows locked; fn returns the states to write (nil: none).
func (s *RateLimitStore) locked(ctx context.Context, buckets []ratelimit.Bucket, fn func([]ratelimit.State) ([]ratelimit.State, error)) error {
	if len(buckets) == 0 {
		_, err := fn(nil)
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, rateLimitTimeout)
	defer cancel()
	// Rows are created and locked in key order, whatever the call's order.
	order := make([]int, len(buckets))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if buckets[a].Key < buckets[b].Key {
			return -1
		} else if buckets[a].Key > buckets[b].Key {
			return 1
		}
		return 0
	})
	keys := make([]string, 0, len(buckets))
	fresh := make([]float64, 0, len(buckets))
	for _, j := range order {
		k := storedKey(buckets[j].Key)
		if n := len(keys); n > 0 && keys[n-1] == k {
			continue // one row per key: an upsert may not touch a row twice
		}
		keys = append(keys, k)
		fresh = append(fresh, buckets[j].Rate.Fresh(time.Time{}).Tokens)
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Each row is created, or locked as it is (an update that changes
		// nothing), so that Sweep cannot delete it before it is read.
		if _, err := tx.Exec(ctx, `INSERT INTO toolbelt_ratelimit (key, tokens, updated_at, full_at)
			SELECT k, t, clock_timestamp(), clock_timestamp() FROM unnest($1::text[], $2::float8[]) AS u(k, t)
			ON CONFLICT (key) DO UPDATE SET tokens = toolbelt_ratelimit.tokens`, keys, fresh); err != nil {
			return fmt.Errorf("postgres: rate limit buckets: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT key, tokens, updated_at FROM toolbelt_ratelimit
			WHERE key = ANY($1) ORDER BY key FOR UPDATE`, keys)
		if err != nil {
			return fmt.Errorf("postgres: rate limit buckets: %w", err)
		}
		found := map[string]ratelimit.State{}
		for rows.Next() {
			var k string
			var st ratelimit.State
			if err := rows.Scan(&k, &st.Tokens, &st.Updated); err != nil {
				rows.Close()
				return err
			}
			found[k] = st
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("postgres: rate limit buckets: %w", err)
		}
		// The store's clock, read once the rows are ours.
		var now time.Time
		if err := tx.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&now); err != nil {
			return err
		}
		states := make([]ratelimit.State, len(buckets))
		for i, b := range buckets {
			st, ok := found[storedKey(b.Key)]
			if !ok {
				return fmt.Errorf("postgres: rate limit bucket %q vanished", b.Key)
			}
			states[i] = b.Rate.At(st, now)
		}
		next, err := fn(states)
		if err != nil || next == nil {
			return err
		}
		tokens := make([]float64, len(buckets))
		updated := make([]time.Time, len(buckets))
		full := make([]time.Time, len(buckets))
		wkeys := make([]string, len(buckets))
		for i, b := range buckets {
			wkeys[i], tokens[i], updated[i] = storedKey(b.Key), next[i].Tokens, next[i].Updated
			full[i] = next[i].Updated.Add(b.Rate.Refill(next[i]))
		}
		_, err = tx.Exec(ctx, `UPDATE toolbelt_ratelimit AS r SET tokens = u.t, updated_at = u.at, full_at = u.f
			FROM unnest($1::text[], $2::float8[], $3::timestamptz[], $4::timestamptz[]) AS u(k, t, at, f)
			WHERE r.key = u.k`, wkeys, tokens, updated, full)
		if err != nil {
			return fmt.Errorf("postgres: rate limit buckets: %w", err)
		}
		return nil
	})
}

// storedKey is how a bucket key is kept in a text column, which refuses
// NUL and invalid UTF-8 (a principal's id may hold any bytes): such a key,
// and any key that starts with `\x`, is stored as `\x` and its bytes in hex,
// so every key has a distinct stored form.
func storedKey(k string) string {
	if utf8.ValidString(k) && !strings.ContainsRune(k, 0) && !strings.HasPrefix(k, `\x`) {
		return k
	}
	return `\x` + hex.EncodeToString([]byte(k))
}

// Sweep deletes the buckets that are full again (idle for their whole
// refill time): they are the same as no row. It returns how many it
// deleted. Run it now and then; nothing depends on it.
func (s *RateLimitStore) Sweep(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM toolbelt_ratelimit WHERE full_at < clock_timestamp()`)
	if err != nil {
		return 0, fmt.Errorf("postgres: sweep rate limit buckets: %w", err)
	}
	return tag.RowsAffected(), nil
}
