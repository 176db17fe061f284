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
//   - Jobs, an executor.JobStore on River: a job submitted on one instance
//     is in the database when Submit returns, runs on any instance with
//     workers, at least once, and every instance sees and cancels it.
//
//   - History, an executor.HistoryStore: History on any instance sees the
//     calls of every instance.
//
//     pool, err := pgxpool.New(ctx, dsn)
//     if err := postgres.Migrate(ctx, pool); err != nil { ... }
//     stores := postgres.New(pool)
//     defer stores.Close()
//     limiter := ratelimit.New(ratelimit.WithStore(stores.RateLimits), ratelimit.PerPrincipal("10/hour"))
//     queue := approval.NewQueue(approval.QueueStore(stores.Approvals))
//     ex, err := executor.New(reg, executor.WithExtensions(limiter, ...),
//     executor.WithJobStore(stores.Jobs), executor.WithHistoryStore(stores.History))
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
// connection pool. They serve one executor: Jobs attaches to the executor
// given it (executor.WithJobStore); build Stores for each executor.
type Stores struct {
	RateLimits *RateLimitStore
	Approvals  *ApprovalStore
	Audit      *AuditSink
	Jobs       *JobStore
	History    *HistoryStore
}

// Option configures the stores New returns.
type Option func(*options)

type options struct{ jobs JobsConfig }

// WithJobs configures the job store: how many jobs this instance runs,
// their timeout and attempts (JobsConfig).
func WithJobs(cfg JobsConfig) Option { return func(o *options) { o.jobs = cfg } }

// New returns every store over pool. Run Migrate once first. Close stops
// what they run in the background.
func New(pool *pgxpool.Pool, opts ...Option) *Stores {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return &Stores{
		RateLimits: &RateLimitStore{pool: pool}, Approvals: newApprovalStore(pool), Audit: &AuditSink{pool: pool},
		Jobs: newJobStore(pool, o.jobs), History: &HistoryStore{pool: pool},
	}
}

// Close stops what the stores run in the background: the approval
// listener, and the job workers, waiting for the jobs this instance runs
// to finish (to bound that wait, call Jobs.Stop with a deadline first). It
// does not close the pool.
func (s *Stores) Close() {
	_ = s.Jobs.Stop(context.Background()) // without a deadline, Stop fails only if River does; nothing is left to do then
	s.Approvals.Close()
}

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
-- What Put's sweep looks for: rows done with, and requests expired.
CREATE INDEX IF NOT EXISTS toolbelt_approvals_done ON toolbelt_approvals (state, decided_at) WHERE state <> 'pending';
CREATE INDEX IF NOT EXISTS toolbelt_approvals_expires ON toolbelt_approvals (expires) WHERE state = 'pending';

CREATE TABLE IF NOT EXISTS toolbelt_history (
	seq         bigserial PRIMARY KEY,
	call_id     text NOT NULL,
	job_id      text NOT NULL,
	tool        text NOT NULL,
	agent       text NOT NULL,
	session     text NOT NULL,
	status      text NOT NULL,
	code        text NOT NULL,
	message     text NOT NULL,
	started_at  timestamptz NOT NULL,
	duration_ns bigint NOT NULL,
	attempts    integer NOT NULL
);
CREATE INDEX IF NOT EXISTS toolbelt_history_started_at ON toolbelt_history (started_at);
CREATE INDEX IF NOT EXISTS toolbelt_history_tool ON toolbelt_history (tool, seq);
CREATE INDEX IF NOT EXISTS toolbelt_history_agent ON toolbelt_history (agent, seq);
-- Whom a call acted for, byte for byte (text would make "alice\xff" and
-- "alice\xfe" one principal). Tables made before have no such columns.
ALTER TABLE toolbelt_history ADD COLUMN IF NOT EXISTS principal bytea NOT NULL DEFAULT '',
	ADD COLUMN IF NOT EXISTS tenant bytea NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS toolbelt_history_principal ON toolbelt_history (tenant, principal, seq);

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
-- A request JSON cannot keep (bytes that are not UTF-8), gob-encoded:
-- request then holds it with U+FFFD for those bytes.
ALTER TABLE toolbelt_approvals ADD COLUMN IF NOT EXISTS exact bytea;
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
	// JobStore finds a job by its Toolbelt id, kept in River's arguments.
	if _, err := conn.Exec(ctx, `CREATE INDEX IF NOT EXISTS toolbelt_job_id ON river_job ((args->>'toolbelt_job'))`); err != nil {
		return fmt.Errorf("postgres: migrate jobs: %w", err)
	}
	return nil
}
