package postgres_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Ids a client or a model names (an MCP tasks/get, a dashboard's decide
// button) are any bytes. PostgreSQL's text refuses a NUL and invalid
// UTF-8: Status, Wait and Cancel of such an id failed with the database's
// error ("invalid byte sequence for encoding UTF8") instead of "no such
// job", and Decide of such an approval id likewise instead of
// ErrNotPending, as the in-memory stores answer. An id with LIKE's
// wildcards names no other job.
func TestAttackS28IDsOfAnyBytesAreNotFound(t *testing.T) {
	dsn := database(t)
	ctx := within(t, time.Minute)
	in := newJobInstance(t, dsn, postgres.JobsConfig{Workers: postgres.NoWorkers})
	real, err := in.ex.Submit(ctx, tool.Call{ID: "c", Name: "report", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "alice", Tenant: "acme"}})
	require.NoError(t, err)

	for _, id := range []executor.JobID{"job-\x00", real + "\x00", "job-\xff", real[:len(real)-1] + "%", "job-%", "job-_", real[:5] + `\`} {
		_, err := in.ex.StatusContext(ctx, id)
		assert.ErrorIs(t, err, executor.ErrJobNotFound, "Status %q", id)
		assert.ErrorIs(t, in.ex.CancelContext(ctx, id), executor.ErrJobNotFound, "Cancel %q", id)
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err = in.ex.Wait(wctx, id)
		cancel()
		assert.ErrorIs(t, err, executor.ErrJobNotFound, "Wait %q", id)
	}
	st, err := in.ex.StatusContext(ctx, real)
	require.NoError(t, err)
	assert.Equal(t, executor.JobPending, st.State, "the real job was not cancelled by a look-alike id")

	a := in.stores.Approvals
	req := approval.Request{Call: tool.Call{ID: "c", Name: "pay", Args: json.RawMessage(`{}`)}, Principal: tool.Principal{ID: "alice", Tenant: "acme"}}
	p := approval.Pending{ID: approval.RequestID(req), Request: req, Since: time.Now(), Expires: time.Now().Add(time.Minute)}
	require.NoError(t, a.Put(ctx, p))
	for _, id := range []string{"apr-\x00", p.ID + "\x00", "apr-\xff", "apr-%", p.ID[:len(p.ID)-1] + "_"} {
		assert.ErrorIs(t, a.Decide(ctx, id, approval.Approved("ops")), approval.ErrNotPending, "Decide %q", id)
		assert.ErrorIs(t, a.DecideRequest(ctx, id, p.Since, approval.Approved("ops")), approval.ErrNotPending, "DecideRequest %q", id)
		assert.NoError(t, a.Withdraw(ctx, id), "Withdraw %q: nothing to withdraw", id)
		_, err := a.Await(ctx, id)
		assert.ErrorIs(t, err, approval.ErrNotPending, "Await %q", id)
	}
	list, err := a.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1, "the real request is still pending")
	assert.Equal(t, p.ID, list[0].ID)
}

// A job list filtered by a tool or agent name a client gave, or a tenant
// of any bytes: the filter's value went to PostgreSQL as text, and a NUL
// or invalid UTF-8 in it failed the whole list. Each tenant's view holds
// its jobs only, whatever LIKE wildcards, backslashes or bytes the names
// hold.
func TestAttackS28JobFiltersOfAnyBytes(t *testing.T) {
	dsn := database(t)
	ctx := within(t, time.Minute)
	in := newJobInstance(t, dsn, postgres.JobsConfig{Workers: postgres.NoWorkers})
	tenants := []string{"acme", "acme\xff", "acme\xfe", "acme\uFFFD", "ac%", "acm_", `acme\`, "ACME", "acme\x00"}
	ids := map[string]executor.JobID{}
	for _, tn := range tenants {
		id, err := in.ex.Submit(ctx, tool.Call{ID: "c", Name: "x" + tn, Agent: "a" + tn, Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "p", Tenant: tn}})
		require.NoError(t, err, "%q", tn)
		ids[tn] = id
	}
	for _, tn := range tenants {
		for _, f := range []executor.JobFilter{{Tenant: tn}, {For: &tool.Principal{ID: "p", Tenant: tn}}, {Tool: "x" + tn}, {Agent: "a" + tn}} {
			sts, err := in.ex.JobsContext(ctx, f)
			require.NoError(t, err, "filter %+v", f)
			require.Len(t, sts, 1, "filter %+v", f)
			assert.Equal(t, ids[tn], sts[0].ID, "filter %+v", f)
		}
	}
	for _, wild := range []string{"%", "_", "acm%", `acme\\`, "acme\xfd"} {
		assert.Empty(t, tenantJobs(t, ctx, in.ex, wild), "tenant %q sees others' jobs", wild)
	}
}

// History filters hold a client's text too: a status or tool name with a
// NUL failed the query, and a record whose code holds one (a backend's
// own code) was dropped.
func TestAttackS28HistoryOfAnyBytes(t *testing.T) {
	dsn := database(t)
	s := postgres.New(newPool(t, dsn))
	t.Cleanup(s.Close)
	ctx := context.Background()
	s.History.Add(ctx, executor.Record{CallID: "c1", Tool: "t", Tenant: "acme", Status: tool.StatusFailed, Code: "bad\x00code\xff", StartedAt: time.Now()})
	s.History.Add(ctx, executor.Record{CallID: "c2", Tool: "t", Tenant: "ac%", Status: "odd\x00", StartedAt: time.Now()})
	n, last := s.History.Dropped()
	require.Zero(t, n, "a record was dropped: %v", last)
	for _, q := range []executor.HistoryQuery{{Status: "odd\x00"}, {Tenant: "ac%"}, {Tool: "t", Status: "odd\x00"}} {
		recs, err := s.History.Query(ctx, q)
		require.NoError(t, err, "%+v", q)
		require.Len(t, recs, 1, "%+v", q)
		assert.Equal(t, "c2", recs[0].CallID)
	}
	for _, q := range []executor.HistoryQuery{{Status: "\xff"}, {Tenant: "%"}, {Tenant: "ac_e"}, {For: &tool.Principal{Tenant: "%"}}} {
		recs, err := s.History.Query(ctx, q)
		require.NoError(t, err, "%+v", q)
		assert.Empty(t, recs, "%+v", q)
	}
}
