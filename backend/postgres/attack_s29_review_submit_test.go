package postgres_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Submit waits for its COMMIT's answer under context.WithoutCancel (5e40671),
// so that a cancellation does not lose the answer of a commit the server
// carried out. But nothing then bounded the wait: a network that went
// silent after the COMMIT left (no reset; TCP gives up after minutes, its
// keepalive after tens of minutes) held Submit, and the pool's connection,
// long after the caller's context had ended, its deadline included: a
// server whose requests submit jobs piles them up. Now the answer is
// waited for a grace (postgres.SetCommitGrace in tests) after ctx ends;
// then Submit gives the error that names the job's id, as for a commit
// whose connection was lost.
func TestAttackS29ReviewSubmitWaitsForALostCommitBoundedly(t *testing.T) {
	trap := newWireTrap(func(sql string) bool { return strings.EqualFold(strings.TrimSpace(sql), "commit") }, "COMMIT")
	trap.withheld = make(chan struct{})
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
	postgres.SetCommitGrace(s.Jobs, 50*time.Millisecond)
	submitter := executor.MustNew(reg, executor.WithJobStore(s.Jobs))
	w := postgres.New(newPool(t, dsn), postgres.WithJobs(postgres.JobsConfig{Workers: postgres.NoWorkers}))
	t.Cleanup(w.Close)
	lister := executor.MustNew(reg, executor.WithJobStore(w.Jobs))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	trap.arm(cancel)
	type submitted struct {
		id  executor.JobID
		err error
	}
	done := make(chan submitted, 1)
	go func() {
		id, err := submitter.Submit(ctx, tool.Call{ID: "c1", Name: "send", Args: json.RawMessage(`{"to":"bob"}`)})
		done <- submitted{id, err}
	}()
	var got submitted
	select {
	case got = <-done:
	case <-time.After(time.Minute): // the grace is 50 ms; a minute is "never"
		close(trap.withheld) // let Submit and the pool go
		<-done
		t.Fatal("Submit still waited for its COMMIT's answer a minute after its context ended")
	}
	select {
	case <-trap.sprung:
	default:
		t.Fatalf("the trap never sprang: Submit gave %q, %v", got.id, got.err)
	}
	require.Error(t, got.err, "the commit's answer never came")
	assert.Empty(t, got.id)
	jobs, err := lister.JobsContext(within(t, time.Minute), executor.JobFilter{})
	require.NoError(t, err)
	require.Len(t, jobs, 1, "the server committed the job")
	assert.Contains(t, got.err.Error(), string(jobs[0].ID), "the error names the job, whose fate is unknown to Submit")
	assert.Contains(t, got.err.Error(), "unknown")
}
