// Package postgres keeps Toolbelt's coordination state in PostgreSQL, so
// that several instances of an agent or an MCP server share it exactly:
//
//   - RateLimits, a ratelimit.Store: every instance takes from the same
//     token buckets, all of a call's buckets or none, in one transaction,
//     on the database's clock. When the database cannot be reached, calls
//     are refused (ratelimit fails closed with tool.CodeUnavailable).
//
//   - Approvals, an approval.Store: a request one instance puts, any
//     instance lists and decides; the waiter wakes through LISTEN/NOTIFY.
//
//   - Audit, an audit.Sink: one audit chain every instance appends to
//     (audit.NewShared), each record at the sequence number it expects, so
//     two writers never fork the chain.
//
//     pool, err := pgxpool.New(ctx, dsn)
//     if err := postgres.Migrate(ctx, pool); err != nil { ... }
//     stores := postgres.New(pool)
//     defer stores.Close()
//     limiter := ratelimit.New(ratelimit.WithStore(stores.RateLimits), ratelimit.PerPrincipal("10/hour"))
//     queue := approval.NewQueue(approval.QueueStore(stores.Approvals))
//
// It is a module of its own, so the core module needs no database driver.
// docs/scaling.md says what is exact across instances and what is not.
package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// Stores are the PostgreSQL implementations of Toolbelt's stores, over one
// connection pool.
type Stores struct {
	RateLimits *RateLimitStore
	Approvals  *ApprovalStore
	Audit      *AuditSink
}

// New returns every store over pool. Run Migrate once first. Close stops
// the approval store's listener.
func New(pool *pgxpool.Pool) *Stores {
	return &Stores{RateLimits: &RateLimitStore{pool: pool}, Approvals: newApprovalStore(pool), Audit: &AuditSink{pool: pool}}
}

// Close stops what the stores run in the background (the approval
// listener). It does not close the pool.
func (s *Stores) Close() { s.Approvals.Close() }

// schema creates the tables, idempotently.
const schema = `
CREATE TABLE IF NOT EXISTS toolbelt_ratelimit (
	key        text PRIMARY KEY,
	tokens     double precision NOT NULL,
	updated_at timestamptz NOT NULL,
	full_at    timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS toolbelt_ratelimit_full_at ON toolbelt_ratelimit (full_at);

CREATE TABLE IF NOT EXISTS toolbelt_approvals (
	id         text PRIMARY KEY,
	request    json NOT NULL,
	since      timestamptz NOT NULL,
	expires    timestamptz,
	state      text NOT NULL CHECK (state IN ('pending', 'decided', 'withdrawn')),
	decision   json,
	decided_at timestamptz
);
CREATE INDEX IF NOT EXISTS toolbelt_approvals_pending ON toolbelt_approvals (since, id) WHERE state = 'pending';

CREATE TABLE IF NOT EXISTS toolbelt_audit (
	seq  bigint PRIMARY KEY CHECK (seq > 0),
	hash text NOT NULL,
	line text NOT NULL
);
-- Requests and decisions are kept as written: jsonb refuses the escape
-- \u0000 a model may put in its arguments. Tables made with jsonb change
-- once.
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
		AND table_name = 'toolbelt_approvals' AND column_name IN ('request', 'decision') AND data_type = 'jsonb') THEN
		ALTER TABLE toolbelt_approvals ALTER COLUMN request TYPE json USING request::json,
			ALTER COLUMN decision TYPE json USING decision::json;
	END IF;
END $$;
`

// Migrate creates the tables the stores use, if they are missing. It is
// safe to run from several instances at once.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	defer conn.Release()
	// One migration at a time across instances.
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(7271001)`); err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(7271001)`) //nolint:errcheck
	if _, err := conn.Exec(ctx, schema); err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	// River's own tables, for Jobs.
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("postgres: migrate jobs: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("postgres: migrate jobs: %w", err)
	}
	return nil
}
