package postgres

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/tool"
)

// DefaultHistoryQueryMax is how many records HistoryStore.Query returns at
// most for a query without a Limit (as the in-memory ring keeps the last
// executor.DefaultHistory).
const DefaultHistoryQueryMax = executor.DefaultHistory

// MaxHistoryQueryLimit is the largest Limit HistoryStore.Query honours: a
// query asking for more gets the newest MaxHistoryQueryLimit records (as
// the in-memory ring returns at most its size), so no query reads the
// whole table.
const MaxHistoryQueryLimit = 10_000

// historyWriteTimeout bounds one record's write: a call's result waits for
// it.
const historyWriteTimeout = 2 * time.Second

// HistoryStore is an executor.HistoryStore in the table toolbelt_history:
// give it to executor.WithHistoryStore, and History on any instance sees
// the calls of every instance. Records are numbered (Seq) in the order the
// database took them; two instances finishing calls at the same moment may
// commit them in the other order, so Seq orders the fleet's calls closely,
// not exactly. Times are kept to the microsecond, as PostgreSQL keeps
// them: a query's Since and Until are compared at that precision. Texts
// are kept as PostgreSQL text, with invalid UTF-8 and NUL replaced by
// U+FFFD, and cut (saying how much) past 2 KiB (names, ids, the session,
// the status and code) or 16 KiB (the message); a query's texts are
// compared as they are kept. A record's Principal and Tenant are kept byte
// for byte, so that a query for one principal never matches another; one
// longer than 1 KiB is kept as "\x00sha256:" and its SHA-256, which a
// query for it matches.
//
// Writing a record is one INSERT that the call's result waits for (at
// most two seconds). A record that cannot be written is dropped (history
// is a summary; the audit trail is the record that must not be lost):
// Dropped counts them and keeps the last error. The table grows until
// Prune deletes old records.
type HistoryStore struct {
	pool *pgxpool.Pool

	dropped atomic.Uint64
	mu      sync.Mutex
	lastErr error
}

// Add implements executor.HistoryStore.
func (h *HistoryStore) Add(ctx context.Context, r executor.Record) {
	ctx, cancel := context.WithTimeout(ctx, historyWriteTimeout)
	defer cancel()
	_, err := h.pool.Exec(ctx, `INSERT INTO toolbelt_history
		(call_id, job_id, tool, agent, session, principal, tenant, status, code, message, started_at, duration_ns, attempts)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		cut(r.CallID, maxHistoryName), cut(string(r.JobID), maxHistoryName), cut(r.Tool, maxHistoryName), cut(r.Agent, maxHistoryName),
		cut(r.Session, maxHistoryName), who(r.Principal), who(r.Tenant),
		cut(string(r.Status), maxHistoryName), cut(string(r.Code), maxHistoryName), cut(r.Message, maxHistoryMessage), r.StartedAt, int64(r.Duration), r.Attempts)
	if err != nil {
		h.dropped.Add(1)
		h.mu.Lock()
		h.lastErr = fmt.Errorf("postgres: history: record of call %q: %w", cut(r.CallID, maxHistoryName), err)
		h.mu.Unlock()
	}
}

// Dropped reports how many records could not be written, and why the
// last one could not.
func (h *HistoryStore) Dropped() (n uint64, last error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dropped.Load(), h.lastErr
}

// text makes s storable as PostgreSQL text, which refuses NUL bytes and
// invalid UTF-8 (both may come from a caller or a tool's error).
func text(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// storableID reports whether id, a job's or an approval's as a client
// names it, can be looked for in a text column: one with a NUL or
// invalid UTF-8 is no stored id, and PostgreSQL refuses it as a query's
// value (an error, where "not found" is the answer).
func storableID(id string) bool { return text(id) == id }

// Bounds of a record's texts. A tool's name and a call's id are the
// model's or a client's, of any length: kept whole, a long name failed the
// INSERT (an index entry holds about 2.7 KB) and the call's record was
// lost, and a probe's record cost its size.
const (
	maxHistoryName    = 2 << 10  // a tool's or agent's name, an id, a session: over the executor's cut (executor.MaxRecordFieldBytes)
	maxHistoryWho     = 1 << 10  // a principal's id or tenant, kept whole below it: the two share an index entry
	maxHistoryMessage = 16 << 10 // over the executor's cut (executor.MaxRecordMessageBytes)
)

// digestMark starts the kept form of a principal's id or tenant that is
// longer than maxHistoryWho (or starts so itself): the mark, then its
// SHA-256. The principal index takes no longer entry.
const digestMark = "\x00sha256:"

// who is how a principal's id or tenant is kept, and looked for: its
// bytes, or digestMark and its SHA-256, so that no two share a kept form.
func who(s string) []byte {
	if len(s) <= maxHistoryWho && !strings.HasPrefix(s, digestMark) {
		return []byte(s)
	}
	sum := sha256.Sum256([]byte(s))
	return append([]byte(digestMark), sum[:]...)
}

// cut is text(s) of at most limit bytes (and whole characters), with how
// many it left out.
func cut(s string, limit int) string { return textcut.Clip(text(s), limit) }

// Query implements executor.HistoryStore: the newest records that match
// q, oldest first, at most q.Limit, or DefaultHistoryQueryMax without it,
// and never more than MaxHistoryQueryLimit.
func (h *HistoryStore) Query(ctx context.Context, q executor.HistoryQuery) ([]executor.Record, error) {
	var where []string
	args := pgx.NamedArgs{}
	add := func(cond, name string, v any) {
		where = append(where, cond)
		args[name] = v
	}
	if q.Tool != "" {
		add("tool = @tool", "tool", cut(q.Tool, maxHistoryName)) // as Add kept it
	}
	if q.Agent != "" {
		add("agent = @agent", "agent", cut(q.Agent, maxHistoryName))
	}
	if q.For != nil { // exactly that principal, an anonymous one included
		add("principal = @for_id AND tenant = @for_tenant", "for_id", who(q.For.ID))
		args["for_tenant"] = who(q.For.Tenant)
	}
	if q.Tenant != "" {
		add("tenant = @tenant", "tenant", who(q.Tenant))
	}
	if q.Status != "" {
		add("status = @status", "status", cut(string(q.Status), maxHistoryName))
	}
	if !q.Since.IsZero() {
		add("started_at >= @since", "since", q.Since)
	}
	if !q.Until.IsZero() {
		add("started_at < @until", "until", q.Until)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultHistoryQueryMax
	}
	args["limit"] = min(limit, MaxHistoryQueryLimit)
	sql := `SELECT seq, call_id, job_id, tool, agent, session, principal, tenant, status, code, message, started_at, duration_ns, attempts
		FROM toolbelt_history`
	if len(where) > 0 {
		sql += " WHERE " + strings.Join(where, " AND ")
	}
	sql += " ORDER BY seq DESC LIMIT @limit"
	rows, err := h.pool.Query(ctx, sql, args)
	if err != nil {
		return nil, fmt.Errorf("postgres: history: %w", err)
	}
	var out []executor.Record
	for rows.Next() {
		var (
			r                 executor.Record
			job, status, code string
			principal, tenant []byte
			durationNS, seq   int64
			attempts          int32
		)
		if err := rows.Scan(&seq, &r.CallID, &job, &r.Tool, &r.Agent, &r.Session, &principal, &tenant, &status, &code, &r.Message, &r.StartedAt, &durationNS, &attempts); err != nil {
			rows.Close()
			return nil, fmt.Errorf("postgres: history: %w", err)
		}
		r.Seq, r.JobID, r.Status, r.Code = uint64(seq), executor.JobID(job), tool.Status(status), tool.Code(code)
		r.Principal, r.Tenant = string(principal), string(tenant)
		r.Duration, r.Attempts = time.Duration(durationNS), int(attempts)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: history: %w", err)
	}
	slices.Reverse(out)
	return out, nil
}

// Prune deletes the records of calls that started before t and returns
// how many it deleted. Nothing else deletes records: run it now and then.
func (h *HistoryStore) Prune(ctx context.Context, before time.Time) (int64, error) {
	tag, err := h.pool.Exec(ctx, `DELETE FROM toolbelt_history WHERE started_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("postgres: history: prune: %w", err)
	}
	return tag.RowsAffected(), nil
}

var _ executor.HistoryStore = (*HistoryStore)(nil)
