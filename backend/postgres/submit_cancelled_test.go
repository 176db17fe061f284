package postgres_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// wireTrap cancels a context at the moment the server has carried out a
// statement and its answer is on the way to the client: a pool's
// connections dial through it (DialFunc) and its tracer (Tracer) marks the
// connection that runs the statement. When the answer arrives, the trap
// cancels, and the answer is lost as it would be on the network: the
// connection's read fails once the driver, told of the cancellation, sets
// a deadline on it. A statement run under a context nothing can cancel
// gets its answer.
type wireTrap struct {
	statement func(sql string) bool // the statement trapped
	answer    []byte                // its CommandComplete message
	// withheld, when not nil, makes the answer never arrive (a network
	// that went silent): the read waits for a deadline, or until
	// withheld is closed.
	withheld chan struct{}

	mu     sync.Mutex
	cancel context.CancelFunc // armed while not nil
	sprung chan struct{}
}

func newWireTrap(statement func(sql string) bool, tag string) *wireTrap {
	answer := []byte{'C', 0, 0, 0, 0}
	binary.BigEndian.PutUint32(answer[1:], uint32(4+len(tag)+1))
	answer = append(append(answer, tag...), 0)
	return &wireTrap{statement: statement, answer: answer, sprung: make(chan struct{})}
}

// arm makes the next run of the statement cancel with cancel.
func (tr *wireTrap) arm(cancel context.CancelFunc) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.cancel = cancel
}

// spring cancels, once.
func (tr *wireTrap) spring() {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.cancel != nil {
		tr.cancel()
		tr.cancel = nil
		close(tr.sprung)
	}
}

func (tr *wireTrap) armed() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.cancel != nil
}

func (tr *wireTrap) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &trapConn{Conn: c, trap: tr}, nil
}

// TraceQueryStart marks the connection that runs the trapped statement,
// with the context it runs under.
func (tr *wireTrap) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if tr.armed() && tr.statement(data.SQL) {
		if c, ok := conn.PgConn().Conn().(*trapConn); ok {
			c.mark(ctx)
		}
	}
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer.
func (tr *wireTrap) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// trapConn is a connection of a trapped pool.
type trapConn struct {
	net.Conn
	trap *wireTrap

	mu       sync.Mutex
	runs     context.Context // the trapped statement's, while its answer is awaited
	deadline chan struct{}   // closed when a deadline is set after mark
}

func (c *trapConn) mark(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs, c.deadline = ctx, make(chan struct{})
}

func (c *trapConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	if !t.IsZero() && c.deadline != nil {
		close(c.deadline)
		c.deadline = nil
	}
	c.mu.Unlock()
	return c.Conn.SetDeadline(t)
}

func (c *trapConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	runs, deadline := c.runs, c.deadline
	hit := runs != nil && bytes.Contains(p[:n], c.trap.answer)
	if hit {
		c.runs = nil
	}
	c.mu.Unlock()
	if !hit {
		return n, err
	}
	c.trap.spring()
	if c.trap.withheld != nil {
		// The answer never comes: the read ends when the driver gives
		// up on it (a deadline), or when the test does.
		select {
		case <-deadline:
			return 0, os.ErrDeadlineExceeded
		case <-c.trap.withheld:
			// The driver reads again after a timeout: the connection
			// is closed instead, as a reset would.
			_ = c.Conn.Close()
			return 0, net.ErrClosed
		}
	}
	if runs.Err() == nil {
		// The statement's context did not end with the cancellation:
		// the driver sets no deadline, and the answer arrives.
		return n, err
	}
	<-deadline // the driver's answer to the cancellation
	return 0, os.ErrDeadlineExceeded
}

// trappedJobs is an instance that submits jobs, through trap, and one that
// runs them, with the tool they run.
func trappedJobs(t *testing.T, trap *wireTrap) (submitter, worker *executor.Executor) {
	t.Helper()
	dsn := database(t)
	cfg, err := pgxpool.ParseConfig(dsn)
	require.NoError(t, err)
	cfg.ConnConfig.DialFunc = trap.dial
	cfg.ConnConfig.Tracer = trap
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	reg := newInstance(t, dsn, func(*postgres.Stores) []executorOption { return nil }).ex.Registry()
	s := postgres.New(pool, postgres.WithJobs(postgres.JobsConfig{Workers: postgres.NoWorkers}))
	t.Cleanup(s.Close)
	w := postgres.New(newPool(t, dsn), postgres.WithJobs(postgres.JobsConfig{Workers: 1}))
	t.Cleanup(w.Close)
	return executor.MustNew(reg, executor.WithJobStore(s.Jobs)), executor.MustNew(reg, executor.WithJobStore(w.Jobs))
}

// A Submit whose context is cancelled once its job's transaction has
// committed, while the server's answer to COMMIT is on the way, reported
// the cancellation as its error (no job id), and the job ran all the
// same: a caller that submits again on such an error runs the call twice.
// Submit now reports the job it kept.
func TestSubmitCancelledAsItsJobCommitsReportsTheJob(t *testing.T) {
	trap := newWireTrap(func(sql string) bool { return strings.EqualFold(strings.TrimSpace(sql), "commit") }, "COMMIT")
	submitter, worker := trappedJobs(t, trap)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	trap.arm(cancel)
	id, err := submitter.Submit(ctx, tool.Call{ID: "c1", Name: "send", Args: json.RawMessage(`{"to":"bob"}`)})
	select {
	case <-trap.sprung:
	default:
		t.Fatalf("the trap never sprang: Submit gave %q, %v", id, err)
	}
	assert.NoError(t, err, "Submit reported an error for the job it kept")

	wctx := within(t, time.Minute)
	jobs, err := worker.JobsContext(wctx, executor.JobFilter{})
	require.NoError(t, err)
	require.Len(t, jobs, 1, "the job was kept")
	assert.Equal(t, jobs[0].ID, id, "Submit gave another id than the job's")
	res, err := worker.Wait(wctx, jobs[0].ID)
	require.NoError(t, err)
	assert.True(t, res.OK(), "the job ran")
}

// A Submit whose context is cancelled before its job's transaction
// commits (here: as the insert's answer comes back) reports the
// cancellation, and keeps nothing.
func TestSubmitCancelledBeforeItsJobCommitsKeepsNothing(t *testing.T) {
	trap := newWireTrap(func(sql string) bool {
		return strings.Contains(sql, "INSERT INTO") && strings.Contains(sql, "river_job")
	}, "INSERT 0 1")
	submitter, worker := trappedJobs(t, trap)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	trap.arm(cancel)
	id, err := submitter.Submit(ctx, tool.Call{ID: "c1", Name: "send", Args: json.RawMessage(`{"to":"bob"}`)})
	select {
	case <-trap.sprung:
	default:
		t.Fatalf("the trap never sprang: Submit gave %q, %v", id, err)
	}
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, id)
	jobs, err := worker.JobsContext(within(t, time.Minute), executor.JobFilter{})
	require.NoError(t, err)
	assert.Empty(t, jobs, "a job Submit reported as not submitted was kept")
}
