package postgres_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/backend/postgres/pgtest"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A worker killed while its call waited leaves the request pending in the
// database until it expires. The job run again after that must ask again;
// it timed out at once on the dead request's expiry, forever.
func TestAnExpiredRequestIsAskedAgain(t *testing.T) {
	dsn := database(t)
	s := postgres.New(newPool(t, dsn))
	defer s.Close()
	ctx := context.Background()
	req := approval.Request{Call: tool.Call{ID: "job-9", Name: "deploy", Args: json.RawMessage(`{}`)}}
	past := time.Now().Add(-time.Hour)
	require.NoError(t, s.Approvals.Put(ctx, approval.Pending{ID: approval.RequestID(req), Request: req, Since: past, Expires: past.Add(time.Minute)}))

	q := approval.NewQueue(approval.QueueStore(s.Approvals), approval.QueueTimeout(time.Minute))
	type result struct {
		d   approval.Decision
		err error
	}
	done := make(chan result, 1)
	go func() { d, err := q.Approve(ctx, req); done <- result{d, err} }()
	// Next returns once q has put the request again (its own puts wake it).
	nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p, err := q.Next(nctx)
	require.NoError(t, err, "asked again")
	assert.Equal(t, approval.RequestID(req), p.ID)
	assert.Equal(t, 1, q.Len(), "asked again")
	require.NoError(t, q.Resolve(approval.RequestID(req), approval.Approved("ops")))
	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, "ops", r.d.DecidedBy)
}

// The database dies (its server killed) while a call waits for approval
// and while limits are being taken: the waiter gets an error, never a
// decision, the limit refuses, and no connection stays acquired.
func TestTheDatabaseDyingFailsClosed(t *testing.T) {
	srv, err := pgtest.Start()
	require.NoError(t, err)
	defer srv.Stop()
	ctx := context.Background()
	dsn, err := srv.CreateDatabase(ctx, "dying")
	require.NoError(t, err)
	pool, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	defer pool.Close()
	require.NoError(t, postgres.Migrate(ctx, pool))
	s := postgres.New(pool)
	defer s.Close()

	bucket := []ratelimit.Bucket{{Key: "p", Rate: ratelimit.Per(10, time.Hour)}}
	g, err := s.RateLimits.Take(ctx, bucket)
	require.NoError(t, err)
	require.True(t, g.OK)

	q := approval.NewQueue(approval.QueueStore(s.Approvals), approval.QueueTimeout(time.Minute))
	type result struct {
		d   approval.Decision
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := q.Approve(ctx, approval.Request{Call: tool.Call{ID: "c", Name: "deploy", Args: json.RawMessage(`{}`)}})
		done <- result{d, err}
	}()
	// Next returns once q has put the request (its own puts wake it).
	nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = q.Next(nctx)
	require.NoError(t, err, "the request is pending")
	require.Equal(t, 1, q.Len())

	require.NoError(t, syscall.Kill(srv.Pid(), syscall.SIGKILL))

	select {
	case r := <-done:
		require.Error(t, r.err, "no decision without the database")
		assert.Equal(t, approval.Decision{}, r.d)
	case <-time.After(30 * time.Second):
		t.Fatal("the waiter did not notice the database died")
	}
	g, err = s.RateLimits.Take(ctx, bucket)
	require.Error(t, err, "the limit cannot be taken")
	assert.False(t, g.OK)
	// The store's listener holds its connection until it reads the death
	// on the socket, which a loaded machine may schedule late: no
	// connection *stays* acquired. Polled: pgxpool signals no release.
	assert.Eventually(t, func() bool { return pool.Stat().AcquiredConns() == 0 }, 10*time.Second, 10*time.Millisecond, "no connection left acquired")
}

// Bucket keys hold principals' ids, whatever bytes they are. PostgreSQL's
// text refuses NUL and invalid UTF-8: such a principal's every call failed
// as "unavailable, retry", and no retry could help. Keys are stored so that
// every byte string is a distinct, storable key.
func TestBucketKeysOfAnyBytes(t *testing.T) {
	dsn := database(t)
	s := postgres.New(newPool(t, dsn))
	defer s.Close()
	ctx := context.Background()
	for _, key := range []string{"principal/3:a\x00b", "principal/2:\xff\xfe", `\x7072696e636970616c2f313a61`, "principal/1:a"} {
		b := []ratelimit.Bucket{{Key: key, Rate: ratelimit.Per(1, time.Hour)}}
		g, err := s.RateLimits.Take(ctx, b)
		require.NoError(t, err, "%q", key)
		assert.True(t, g.OK, "%q: a bucket of its own", key)
		g, err = s.RateLimits.Take(ctx, b)
		require.NoError(t, err, "%q", key)
		assert.False(t, g.OK, "%q: the same bucket again", key)
		require.NoError(t, s.RateLimits.Give(ctx, b), "%q", key)
	}
}

// A model can put "\u0000" in its arguments; jsonb refuses it, so the
// request could not be queued and the call was denied without a person
// ever seeing it. Requests are kept as written (json), and the person on
// another instance sees the arguments the call will run with.
func TestARequestWithANULEscapeIsQueued(t *testing.T) {
	dsn := database(t)
	a := postgres.New(newPool(t, dsn))
	defer a.Close()
	b := postgres.New(newPool(t, dsn))
	defer b.Close()
	// qa tells of the request once it is in the database.
	put := make(chan approval.Pending, 1)
	qa := approval.NewQueue(approval.QueueStore(a.Approvals), approval.QueueTimeout(time.Minute),
		approval.OnPending(func(_ *approval.Queue, p approval.Pending) { put <- p }))
	qb := approval.NewQueue(approval.QueueStore(b.Approvals))
	ctx := context.Background()
	args := `{"path":"a\u0000b","path2":"x"}`
	type result struct {
		d   approval.Decision
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := qa.Approve(ctx, approval.Request{Call: tool.Call{ID: "nul", Name: "write", Args: json.RawMessage(args)}})
		done <- result{d, err}
	}()
	select {
	case <-put:
	case r := <-done:
		t.Fatalf("the call ended before anyone decided: %+v", r)
	case <-time.After(10 * time.Second):
		t.Fatal("the request was neither queued nor refused")
	}
	list := qb.Pending()
	require.Len(t, list, 1, "the other instance lists the request")
	assert.Equal(t, args, string(list[0].Request.Call.Args), "the arguments as the call will run them")
	require.NoError(t, qb.Resolve(list[0].ID, approval.Approved("ops")))
	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, "ops", r.d.DecidedBy)
}

// A database migrated by the first version (jsonb columns) is changed once.
func TestMigrateChangesJSONBColumns(t *testing.T) {
	ctx := context.Background()
	dsn, err := server.CreateDatabase(ctx, "old_schema_"+strconv.FormatInt(dbSeq.Add(1), 10)) // a name of its own under -count
	require.NoError(t, err)
	pool := newPool(t, dsn)
	_, err = pool.Exec(ctx, `CREATE TABLE toolbelt_approvals (id text PRIMARY KEY, request jsonb NOT NULL, since timestamptz NOT NULL,
		expires timestamptz, state text NOT NULL CHECK (state IN ('pending', 'decided', 'withdrawn')), decision jsonb, decided_at timestamptz)`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO toolbelt_approvals VALUES ('apr-1', '{"a": 1}', now(), NULL, 'pending', NULL, NULL)`)
	require.NoError(t, err)
	require.NoError(t, postgres.Migrate(ctx, pool))
	require.NoError(t, postgres.Migrate(ctx, pool))
	var types []string
	rows, err := pool.Query(ctx, `SELECT data_type FROM information_schema.columns WHERE table_name = 'toolbelt_approvals'
		AND column_name IN ('request', 'decision') ORDER BY column_name`)
	require.NoError(t, err)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		types = append(types, s)
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, []string{"json", "json"}, types)
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM toolbelt_approvals`).Scan(&n))
	assert.Equal(t, 1, n, "rows kept")
}

// A dashboard whose approval store cannot be read says so (503 and the
// reason); it answered an empty list, which the page showed as "Nothing is
// waiting" while calls waited.
func TestDashboardSaysWhenTheStoreIsDown(t *testing.T) {
	const token = "fleet-dashboard-token-0123456789"
	pool := newPool(t, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	s := postgres.New(pool)
	defer s.Close()
	dash, err := dashboard.New(executor.MustNew(registry.New()), dashboard.WithToken(token),
		dashboard.WithQueue(approval.NewQueue(approval.QueueStore(s.Approvals))))
	require.NoError(t, err)
	srv := httptest.NewServer(dash)
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/approvals", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode, "%s", b)
	assert.Contains(t, string(b), "approval store")
}

// A history table made before records named their principal gains the
// columns, and keeps its records (as acting for nobody).
func TestMigrateAddsPrincipalToHistory(t *testing.T) {
	ctx := context.Background()
	dsn, err := server.CreateDatabase(ctx, "old_history_"+strconv.FormatInt(dbSeq.Add(1), 10))
	require.NoError(t, err)
	pool := newPool(t, dsn)
	_, err = pool.Exec(ctx, `CREATE TABLE toolbelt_history (seq bigserial PRIMARY KEY, call_id text NOT NULL, job_id text NOT NULL,
		tool text NOT NULL, agent text NOT NULL, session text NOT NULL, status text NOT NULL, code text NOT NULL, message text NOT NULL,
		started_at timestamptz NOT NULL, duration_ns bigint NOT NULL, attempts integer NOT NULL);
		INSERT INTO toolbelt_history (call_id, job_id, tool, agent, session, status, code, message, started_at, duration_ns, attempts)
		VALUES ('old-1', '', 'echo', 'ann', 's1', 'succeeded', '', '', now(), 1000, 1)`)
	require.NoError(t, err)
	require.NoError(t, postgres.Migrate(ctx, pool))
	require.NoError(t, postgres.Migrate(ctx, pool))
	s := postgres.New(pool)
	defer s.Close()
	h := s.History
	recs, err := h.Query(ctx, executor.HistoryQuery{})
	require.NoError(t, err)
	require.Len(t, recs, 1, "rows kept")
	assert.Equal(t, "old-1", recs[0].CallID)
	assert.Empty(t, recs[0].Principal)
	h.Add(ctx, executor.Record{CallID: "new-1", Tool: "echo", Principal: "alice", Tenant: "acme", Status: tool.StatusSucceeded, StartedAt: time.Now()})
	recs, err = h.Query(ctx, executor.HistoryQuery{For: &tool.Principal{ID: "alice", Tenant: "acme"}})
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, "new-1", recs[0].CallID)
}
