package executor_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// whose are the principals of the tests below: two alices of two tenants,
// bob of acme, alice of no tenant, and nobody (anonymous).
var whose = []tool.Principal{
	{ID: "alice", Tenant: "acme"},
	{ID: "alice", Tenant: "globex"},
	{ID: "bob", Tenant: "acme"},
	{ID: "alice"},
	{},
}

// A multi-tenant host shows each principal the calls, jobs and events that
// are theirs. The records named no principal, so it could not: the two
// alices' history, jobs and live events looked the same, and call ids come
// from models ("call_1" in every conversation). Each record carries the
// principal's ID and tenant, and a filter's Principal selects that ID in
// its tenant only; a filter built from an anonymous caller selects the
// anonymous calls, not everyone's (an empty ID once matched every one).
func TestRecordsNameThePrincipalAndFiltersSelectItInItsTenant(t *testing.T) {
	ex := executor.MustNew(scRegistry(t, scNoop()))
	ctx := context.Background()
	events, stop := ex.Subscribe(executor.EventFilter{For: &tool.Principal{ID: "alice", Tenant: "acme"}, Kinds: []tool.EventKind{tool.EventCompleted}})
	defer stop()
	tenantEvents, stopTenant := ex.Subscribe(executor.EventFilter{Tenant: "acme", Kinds: []tool.EventKind{tool.EventCompleted}})
	defer stopTenant()

	for _, p := range whose {
		// One call id for all: a model's.
		_, err := ex.Execute(ctx, tool.Call{ID: "call_1", Name: "noop", Args: []byte(`{}`), Principal: p})
		require.NoError(t, err)
		id, err := ex.Submit(ctx, tool.Call{ID: "call_1", Name: "noop", Args: []byte(`{}`), Principal: p})
		require.NoError(t, err)
		_, err = ex.Wait(ctx, id)
		require.NoError(t, err)
	}
	// A call that names no principal acts for its context's, and says so.
	_, err := ex.Execute(tool.WithPrincipal(ctx, tool.Principal{ID: "carol", Tenant: "acme"}), tool.Call{ID: "call_1", Name: "noop", Args: []byte(`{}`)})
	require.NoError(t, err)

	who := func(tenant, id string) string { return tenant + "/" + id }
	acmeAlice, noTenantAlice, anonymous := &tool.Principal{ID: "alice", Tenant: "acme"}, &tool.Principal{ID: "alice"}, &tool.Principal{}
	t.Run("history", func(t *testing.T) {
		all := ex.History(executor.HistoryQuery{})
		require.Len(t, all, 2*len(whose)+1)
		for _, r := range ex.History(executor.HistoryQuery{For: acmeAlice}) {
			assert.Equal(t, who("acme", "alice"), who(r.Tenant, r.Principal))
		}
		assert.Len(t, ex.History(executor.HistoryQuery{For: acmeAlice}), 2)
		assert.Len(t, ex.History(executor.HistoryQuery{For: noTenantAlice}), 2, "alice of no tenant only")
		assert.Len(t, ex.History(executor.HistoryQuery{For: anonymous}), 2, "the anonymous calls only")
		assert.Len(t, ex.History(executor.HistoryQuery{Tenant: "acme"}), 5, "acme's alice, bob and carol")
		last := all[len(all)-1]
		assert.Equal(t, who("acme", "carol"), who(last.Tenant, last.Principal))
	})
	t.Run("jobs", func(t *testing.T) {
		jobs := ex.Jobs(executor.JobFilter{For: &tool.Principal{ID: "alice", Tenant: "globex"}})
		require.Len(t, jobs, 1)
		assert.Equal(t, who("globex", "alice"), who(jobs[0].Tenant, jobs[0].Principal))
		assert.Len(t, ex.Jobs(executor.JobFilter{For: noTenantAlice}), 1, "alice of no tenant only")
		assert.Len(t, ex.Jobs(executor.JobFilter{For: anonymous}), 1, "the anonymous job only")
		assert.Len(t, ex.Jobs(executor.JobFilter{Tenant: "acme"}), 2)
		assert.Len(t, ex.Jobs(executor.JobFilter{}), len(whose))
	})
	t.Run("events", func(t *testing.T) {
		mine := scCollect(events, func(tool.Event) bool { return false }, 200*time.Millisecond)
		require.Len(t, mine, 2, "acme's alice's call and job")
		for _, ev := range mine {
			assert.Equal(t, who("acme", "alice"), who(ev.Tenant, ev.Principal))
		}
		acme := scCollect(tenantEvents, func(tool.Event) bool { return false }, 200*time.Millisecond)
		assert.Len(t, acme, 5)
	})
}

// A job acts for the principal it was submitted for: a store's worker that
// runs it with a context carrying another principal (its own) does not
// lend it to an anonymous job.
func TestAJobRunByAWorkerIsNotLentTheWorkersPrincipal(t *testing.T) {
	store := &lentStore{}
	reg := scRegistry(t, tool.Func("whoami", "Say who calls", func(ctx context.Context, _ struct{}) (string, error) {
		p, _ := tool.PrincipalFrom(ctx)
		return "[" + p.Tenant + "/" + p.ID + "]", nil
	}))
	ex := executor.MustNew(reg, executor.WithJobStore(store))
	worker := tool.WithPrincipal(context.Background(), tool.Principal{ID: "worker", Tenant: "ops"})
	res := store.run.Run(worker, "job-1", tool.Call{ID: "c1", Name: "whoami", Args: []byte(`{}`)})
	require.True(t, res.OK(), "%v", res.Error)
	assert.NotContains(t, res.Text(), "worker")
	recs := ex.History(executor.HistoryQuery{})
	require.Len(t, recs, 1)
	assert.Empty(t, recs[0].Principal, "the record names the job's principal: none")
}

// lentStore is a JobStore that only keeps the runner it is given.
type lentStore struct {
	executor.JobStore
	run executor.JobRunner
}

func (s *lentStore) Attach(r executor.JobRunner) error { s.run = r; return nil }
