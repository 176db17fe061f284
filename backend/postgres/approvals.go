package postgres

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolbelt-go/toolbelt/approval"
)

// notifyChannel is the LISTEN/NOTIFY channel on which a decided or
// withdrawn approval's id is announced.
const notifyChannel = "toolbelt_approvals"

// recheck bounds how long a waiter trusts the notifications alone: it looks
// at its row at least this often (a notification lost with a dropped
// connection costs at most this much delay).
const recheck = 2 * time.Second

// ApprovalStore is an approval.Store in PostgreSQL. Any instance can put,
// list and decide; a decision wakes the waiter on whichever instance it
// waits, through one LISTEN connection per store. A request is kept byte
// for byte, a principal or arguments that are not UTF-8 included.
//
// The table holds what a MemoryStore holds: the pending requests and the
// last approval.DefaultDecisionRetention decisions. Put deletes the rest
// as it goes: withdrawn and delivered requests, requests expired a minute
// ago, older decisions.
type ApprovalStore struct {
	pool *pgxpool.Pool
	now  func() time.Time // this instance's clock
	keep int              // decisions kept: approval.DefaultDecisionRetention

	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
	cancel  context.CancelFunc
	done    chan struct{}
	closed  bool
}

var (
	_ approval.Store          = (*ApprovalStore)(nil)
	_ approval.RequestDecider = (*ApprovalStore)(nil)
)

func newApprovalStore(pool *pgxpool.Pool) *ApprovalStore {
	return &ApprovalStore{pool: pool, now: time.Now, keep: approval.DefaultDecisionRetention, waiters: map[string]map[chan struct{}]struct{}{}}
}

// Put implements approval.Store. A request that is pending but expired
// (its waiter died without withdrawing it), withdrawn, or whose approval
// was delivered is pending again, as p says.
// p.Since and p.Expires are read on this instance's clock and kept on the
// database's, so a request expires when it should whatever the instances'
// clocks say.
func (s *ApprovalStore) Put(ctx context.Context, p approval.Pending) error {
	if p.ID == "" {
		return errors.New("postgres: approval Put: the pending request has no id: use approval.RequestID")
	}
	if !storableID(p.ID) {
		return fmt.Errorf("postgres: approval Put: the id %q holds a NUL or bytes that are not UTF-8, which PostgreSQL's text cannot keep: use approval.RequestID", p.ID)
	}
	req, exact, err := encodeRequest(p.Request)
	if err != nil {
		return fmt.Errorf("postgres: approval %s: encode request: %w", p.ID, err)
	}
	var expires *time.Time
	if !p.Expires.IsZero() {
		expires = &p.Expires
	}
	// p's times are on this instance's clock; they are kept on the
	// database's, which every instance compares them with: shifted by how
	// far this clock is from it (give or take a round trip).
	tag, err := s.pool.Exec(ctx, `INSERT INTO toolbelt_approvals (id, request, exact, since, expires, state)
		VALUES ($1, $2, $6, $3::timestamptz + (clock_timestamp() - $5::timestamptz),
			$4::timestamptz + (clock_timestamp() - $5::timestamptz), 'pending')
		ON CONFLICT (id) DO UPDATE SET request = EXCLUDED.request, exact = EXCLUDED.exact, since = EXCLUDED.since,
			expires = EXCLUDED.expires, state = 'pending', decision = NULL, decided_at = NULL
		WHERE toolbelt_approvals.state = 'withdrawn'
			OR (toolbelt_approvals.state = 'pending' AND toolbelt_approvals.expires <= clock_timestamp())`, p.ID, req, p.Since, expires, s.now(), exact)
	if err != nil {
		return fmt.Errorf("postgres: approval %s: %w", p.ID, err)
	}
	if tag.RowsAffected() > 0 {
		// Housekeeping: a sweep that fails is done by the next Put.
		_, _ = s.pool.Exec(ctx, sweepApprovals, s.keep)
		return nil
	}
	// The id is pending or decided: its waiter shares, or its decision
	// answers, only the same question. The id does not name everything
	// that tells two questions apart (a principal's tenant).
	var stored, storedExact []byte
	if err := s.pool.QueryRow(ctx, `SELECT request, exact FROM toolbelt_approvals WHERE id = $1`, p.ID).Scan(&stored, &storedExact); err != nil {
		return fmt.Errorf("postgres: approval %s: %w", p.ID, err)
	}
	was, err := decodeRequest(stored, storedExact)
	if err != nil {
		return fmt.Errorf("postgres: approval %s: %w", p.ID, err)
	}
	if !sameQuestion(was, p.Request) {
		// What the other request is stays unsaid: it may be another tenant's.
		return fmt.Errorf("postgres: approval %s is taken by another request (another tenant's, or other arguments): this call is not answered by its decision", p.ID)
	}
	return nil
}

// sweepApprovals deletes, up to a hundred of each at a time, the rows no
// one reads again: withdrawn ones (given up, or delivered), pending ones
// expired a minute ago (their waiter died; one alive has seen its
// timeout), and decisions older than the newest $1. Every Put that adds a
// row runs it, so the table holds the pending requests and the decisions
// kept, however many calls ask. A row changed since it was chosen (put
// again, decided again) is left: its state and decided_at are compared
// again as it is deleted.
const sweepApprovals = `DELETE FROM toolbelt_approvals AS a USING (
	(SELECT id, state, decided_at FROM toolbelt_approvals WHERE state = 'withdrawn' LIMIT 100)
	UNION ALL (SELECT id, state, decided_at FROM toolbelt_approvals
		WHERE state = 'pending' AND expires < clock_timestamp() - interval '1 minute' LIMIT 100)
	UNION ALL (SELECT id, state, decided_at FROM toolbelt_approvals WHERE state = 'decided'
		ORDER BY decided_at DESC OFFSET $1 LIMIT 100)) AS old
	WHERE a.id = old.id AND a.state = old.state AND a.decided_at IS NOT DISTINCT FROM old.decided_at
		AND (a.state <> 'pending' OR a.expires < clock_timestamp() - interval '1 minute')`

// encodeRequest returns r as JSON, for the request column, and, when JSON
// cannot keep it byte for byte, gob-encoded too, for the exact column: a
// principal, tenant or argument with bytes that are not UTF-8, which JSON
// makes U+FFFD (so "alice\xff" and "alice\xfe" would be one), or which a
// json column refuses (in arguments, kept as they came). encoding/json
// writes such a byte in a string as the escape \ufffd, not as U+FFFD;
// either sends the request to the exact column (an argument a model wrote
// so, harmlessly, too).
func encodeRequest(r approval.Request) (req, exact []byte, err error) {
	if req, err = json.Marshal(r); err != nil {
		return nil, nil, err
	}
	if utf8.Valid(req) && !bytes.Contains(req, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(req), []byte(`\ufffd`)) {
		return req, nil, nil
	}
	// The tool itself is not kept, as JSON does not keep it (a request read
	// back has none); gob refuses it, an interface value of a type it was
	// never told of, and the request was not put.
	r.Tool = nil
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(r); err != nil {
		return nil, nil, err
	}
	return []byte(strings.ToValidUTF8(string(req), "\uFFFD")), b.Bytes(), nil
}

// decodeRequest reads a request kept by Put: exactly, when it was kept
// gob-encoded too.
func decodeRequest(req, exact []byte) (approval.Request, error) {
	var r approval.Request
	if exact != nil {
		if err := gob.NewDecoder(bytes.NewReader(exact)).Decode(&r); err != nil {
			return r, fmt.Errorf("decode request: %w", err)
		}
		return r, nil
	}
	if err := json.Unmarshal(req, &r); err != nil {
		return r, fmt.Errorf("decode request: %w", err)
	}
	return r, nil
}

// sameQuestion reports whether a and b ask the same: the same call (id,
// tool, session, agent, arguments) of the same principal in the same
// tenant.
func sameQuestion(a, b approval.Request) bool {
	if a.Call.ID != b.Call.ID || a.Call.Name != b.Call.Name || a.Call.Session != b.Call.Session ||
		a.Call.Agent != b.Call.Agent || a.Principal.ID != b.Principal.ID || a.Principal.Tenant != b.Principal.Tenant {
		return false
	}
	ha, errA := approval.HashArgs(a.Call.Args)
	hb, errB := approval.HashArgs(b.Call.Args)
	if errA != nil || errB != nil {
		return errA != nil && errB != nil && string(a.Call.Args) == string(b.Call.Args)
	}
	return ha == hb
}

// Await implements approval.Store. An approval is delivered once, to the
// waiter whose update takes it from decided: the row is then withdrawn
// (its decision kept, which tells it from one a waiter gave up), so that
// the same id put again is pending again, as approval.Store says, and an
// instance of an older version sees nothing it does not know. A denial
// stays decided.
func (s *ApprovalStore) Await(ctx context.Context, id string) (approval.Decision, error) {
	if !storableID(id) {
		return approval.Decision{}, fmt.Errorf("approval %q: %w", id, approval.ErrNotPending)
	}
	wake, err := s.watch(id)
	if err != nil {
		return approval.Decision{}, err
	}
	defer s.unwatch(id, wake)
	for {
		var state string
		var decision []byte
		var expires, decidedAt *time.Time
		var now time.Time
		err := s.pool.QueryRow(ctx, `SELECT state, decision, expires, decided_at, clock_timestamp() FROM toolbelt_approvals WHERE id = $1`, id).
			Scan(&state, &decision, &expires, &decidedAt, &now)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return approval.Decision{}, fmt.Errorf("approval %s: %w", id, approval.ErrNotPending)
		case err != nil:
			if ctx.Err() != nil {
				return approval.Decision{}, fmt.Errorf("approval %s: %w", id, ctx.Err())
			}
			return approval.Decision{}, fmt.Errorf("postgres: approval %s: %w", id, err)
		}
		switch state {
		case "decided":
			var d approval.Decision
			if err := json.Unmarshal(decision, &d); err != nil {
				return approval.Decision{}, fmt.Errorf("postgres: approval %s: decode decision: %w", id, err)
			}
			if d.Kind == approval.Deny {
				return d, nil // a denial stands
			}
			// This decision, to one waiter of every instance: the id may
			// have been delivered, put and decided again since it was read,
			// and decided_at alone does not tell the decisions apart (a
			// database clock may repeat a microsecond), so the decision's
			// text must be the one read too.
			tag, err := s.pool.Exec(ctx, `UPDATE toolbelt_approvals SET state = 'withdrawn'
				WHERE id = $1 AND state = 'decided' AND decided_at = $2 AND decision::text = $3`, id, decidedAt, string(decision))
			if err != nil {
				if ctx.Err() != nil {
					return approval.Decision{}, fmt.Errorf("approval %s: %w", id, ctx.Err())
				}
				return approval.Decision{}, fmt.Errorf("postgres: approval %s: deliver the decision: %w", id, err)
			}
			if tag.RowsAffected() == 1 {
				return d, nil
			}
			continue // another waiter took it: look at the row again
		case "withdrawn":
			if decision != nil {
				return approval.Decision{}, fmt.Errorf("approval %s was already delivered to a waiter, and an approval approves one run: put the request again to ask again: %w", id, approval.ErrNotPending)
			}
			return approval.Decision{}, fmt.Errorf("approval %s was withdrawn: %w", id, approval.ErrNotPending)
		}
		wait := recheck
		if expires != nil {
			left := expires.Sub(now)
			if left <= 0 {
				return approval.Decision{}, fmt.Errorf("approval %s waited until %s: %w", id, expires.Format(time.RFC3339), approval.ErrTimeout)
			}
			wait = min(wait, left)
		}
		t := time.NewTimer(wait)
		select {
		case <-wake:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return approval.Decision{}, fmt.Errorf("approval %s: %w", id, ctx.Err())
		}
		t.Stop()
	}
}

// Decide implements approval.Store.
func (s *ApprovalStore) Decide(ctx context.Context, id string, d approval.Decision) error {
	return s.decide(ctx, id, nil, d)
}

// DecideRequest implements approval.RequestDecider: since is the request's
// Pending.Since as List returned it (on the database's clock).
func (s *ApprovalStore) DecideRequest(ctx context.Context, id string, since time.Time, d approval.Decision) error {
	return s.decide(ctx, id, &since, d)
}

// decide records d for the pending id, and, when since is not nil, only
// if the request pending under id arrived then.
func (s *ApprovalStore) decide(ctx context.Context, id string, since *time.Time, d approval.Decision) error {
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("postgres: approval %s: encode decision: %w", id, err)
	}
	return s.change(ctx, id, `UPDATE toolbelt_approvals SET state = 'decided', decision = $2, decided_at = clock_timestamp()
		WHERE id = $1 AND state = 'pending' AND ($3::timestamptz IS NULL OR since = $3)
		AND (expires IS NULL OR expires > clock_timestamp())`, b, since)
}

// Withdraw implements approval.Store. An approval decided and not yet
// delivered is withdrawn too (its waiter gave up as it landed: nothing ran
// on it), without its decision, which tells it from one delivered; a
// denial stays decided.
func (s *ApprovalStore) Withdraw(ctx context.Context, id string) error {
	if !storableID(id) {
		return nil // no request has such an id
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The decision's kind is read here, not with ->> in the update:
		// PostgreSQL takes no field out of a json value holding \u0000 or
		// a lone surrogate anywhere (a modification keeping a model's
		// arguments), and the update failed, leaving the approval.
		var state string
		var decision []byte
		err := tx.QueryRow(ctx, `SELECT state, decision FROM toolbelt_approvals WHERE id = $1 FOR UPDATE`, id).Scan(&state, &decision)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("postgres: approval %s: withdraw: %w", id, err)
		}
		switch state {
		case "pending":
		case "decided":
			// A decision that cannot be read is withdrawn too: nothing
			// runs on it, and the call asked again is asked of a person.
			var d approval.Decision
			if json.Unmarshal(decision, &d) == nil && d.Kind == approval.Deny {
				return nil // a denial stands
			}
		default:
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE toolbelt_approvals SET state = 'withdrawn', decision = NULL, decided_at = NULL WHERE id = $1`, id); err != nil {
			return fmt.Errorf("postgres: approval %s: withdraw: %w", id, err)
		}
		return notify(ctx, tx, id)
	})
}

// change runs an update of id's row and announces it, in one transaction
// (the notification is sent when it commits). No row changed is
// ErrNotPending.
func (s *ApprovalStore) change(ctx context.Context, id, sql string, args ...any) error {
	if !storableID(id) {
		return fmt.Errorf("approval %q: %w", id, approval.ErrNotPending)
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sql, append([]any{id}, args...)...)
		if err != nil {
			return fmt.Errorf("postgres: approval %s: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("approval %s: %w", id, approval.ErrNotPending)
		}
		return notify(ctx, tx, id)
	})
}

// notify announces, when tx commits, that id's row changed.
func notify(ctx context.Context, tx pgx.Tx, id string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, id); err != nil {
		return fmt.Errorf("postgres: approval %s: notify: %w", id, err)
	}
	return nil
}

// List implements approval.Store.
func (s *ApprovalStore) List(ctx context.Context) ([]approval.Pending, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, request, exact, since, expires FROM toolbelt_approvals
		WHERE state = 'pending' AND (expires IS NULL OR expires > clock_timestamp()) ORDER BY since, id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list approvals: %w", err)
	}
	defer rows.Close()
	var out []approval.Pending
	for rows.Next() {
		var p approval.Pending
		var req, exact []byte
		var expires *time.Time
		if err := rows.Scan(&p.ID, &req, &exact, &p.Since, &expires); err != nil {
			return nil, err
		}
		if p.Request, err = decodeRequest(req, exact); err != nil {
			return nil, fmt.Errorf("postgres: approval %s: %w", p.ID, err)
		}
		if expires != nil {
			p.Expires = *expires
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// watch registers a waiter for id's notifications, starting the listener
// when it is not running.
func (s *ApprovalStore) watch(id string) (chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("postgres: the approval store is closed")
	}
	if s.done == nil {
		ctx, cancel := context.WithCancel(context.Background())
		s.cancel, s.done = cancel, make(chan struct{})
		go s.listen(ctx, s.done)
	}
	ch := make(chan struct{}, 1)
	if s.waiters[id] == nil {
		s.waiters[id] = map[chan struct{}]struct{}{}
	}
	s.waiters[id][ch] = struct{}{}
	return ch, nil
}

func (s *ApprovalStore) unwatch(id string, ch chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.waiters[id], ch)
	if len(s.waiters[id]) == 0 {
		delete(s.waiters, id)
	}
}

// wake wakes id's waiters, or every waiter when id is empty.
func (s *ApprovalStore) wake(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for wid, set := range s.waiters {
		if id != "" && wid != id {
			continue
		}
		for ch := range set {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// listen holds one connection that LISTENs for decisions and wakes the
// waiters they concern. When the connection breaks it wakes every waiter
// (they look at their rows) and connects again.
func (s *ApprovalStore) listen(ctx context.Context, done chan struct{}) {
	defer close(done)
	for ctx.Err() == nil {
		err := s.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		_ = err
		s.wake("")
		select {
		case <-ctx.Done():
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (s *ApprovalStore) listenOnce(ctx context.Context) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer func() {
		// A connection that LISTENed goes back to the pool clean, or not at all.
		if _, err := conn.Exec(context.Background(), "UNLISTEN *"); err != nil {
			conn.Conn().Close(context.Background())
		}
		conn.Release()
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	// Anything decided before LISTEN took effect is seen by the waiters'
	// next look at their rows: wake them once now.
	s.wake("")
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return err
		}
		s.wake(n.Payload)
	}
}

// Close stops the listener and waits for it. Waiters still in Await keep
// looking at their rows every couple of seconds.
func (s *ApprovalStore) Close() {
	s.mu.Lock()
	s.closed = true
	cancel, done := s.cancel, s.done
	s.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}
