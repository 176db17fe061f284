package postgres_test

import (
	"context"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool name is the model's, of any length, and so is a call's id. A call
// of an unknown tool whose name is 64 KiB of random text lost its history
// record: the name went whole into the tool column, whose index takes no
// entry over about 2.7 KB, and the INSERT failed. A model probing for
// tools could so keep its probes out of the shared history, and every such
// record cost its size in the table.
func TestAttackS17HistoryKeepsARecordOfAnyLength(t *testing.T) {
	dsn := database(t)
	ex, store := historyExecutor(t, dsn)
	ctx := context.Background()
	var b strings.Builder
	for b.Len() < 64<<10 {
		b.WriteString(rand.Text()) // random: it does not compress
	}
	long := b.String()
	res, err := ex.Execute(ctx, tool.Call{ID: "probe-" + long, Name: "x" + long, Agent: "coder", Session: long})
	require.Error(t, err)
	require.False(t, res.OK())

	n, last := store.Dropped()
	assert.Zero(t, n, "the record was dropped: %.300v", last)
	recs, err := ex.HistoryContext(ctx, executor.HistoryQuery{Agent: "coder"})
	require.NoError(t, err)
	require.Len(t, recs, 1, "the probe is not in the history")
	r := recs[0]
	assert.Equal(t, tool.CodeNotFound, r.Code)
	assert.True(t, strings.HasPrefix(r.Tool, "x"+long[:100]), "the tool's name is recorded, its start at least")
	for _, s := range []string{r.Tool, r.CallID, r.Session, r.Message} {
		assert.Less(t, len(s), 9<<10, "a text of the record is kept whole, %d bytes", len(s))
	}
	// A query for the name as called finds it.
	recs, err = ex.HistoryContext(ctx, executor.HistoryQuery{Tool: "x" + long})
	require.NoError(t, err)
	assert.Len(t, recs, 1, "a query of the tool as called does not find its record")
}

// A principal's id and tenant are whatever the authenticator takes (a
// header, a claim): one of 4 KiB made the principal index refuse the
// record, so such a client's calls were never in the history.
func TestAttackS17HistoryKeepsALongPrincipal(t *testing.T) {
	dsn := database(t)
	s := postgres.New(newPool(t, dsn))
	t.Cleanup(s.Close)
	ctx := context.Background()
	random := func() string {
		var b strings.Builder
		for b.Len() < 4<<10 {
			b.WriteString(rand.Text())
		}
		return b.String()
	}
	long, tenant := random(), random()
	twin := long[:len(long)-1] + "?" // the same but its last byte
	for i, p := range []executor.Record{
		{CallID: "mallory", Tool: "t", Principal: long, Tenant: tenant},
		{CallID: "twin", Tool: "t", Principal: twin, Tenant: tenant},
	} {
		p.StartedAt = time.Now().Add(time.Duration(i) * time.Millisecond)
		s.History.Add(ctx, p)
	}
	n, last := s.History.Dropped()
	require.Zero(t, n, "a record was dropped: %.300v", last)
	for _, who := range []string{long, twin} {
		recs, err := s.History.Query(ctx, executor.HistoryQuery{For: &tool.Principal{ID: who, Tenant: tenant}})
		require.NoError(t, err)
		require.Len(t, recs, 1, "a query for one long principal")
		assert.Equal(t, map[string]string{long: "mallory", twin: "twin"}[who], recs[0].CallID)
	}
	recs, err := s.History.Query(ctx, executor.HistoryQuery{Tenant: tenant})
	require.NoError(t, err)
	assert.Len(t, recs, 2)
	// Its kept form, given as a principal, is another principal.
	recs, err = s.History.Query(ctx, executor.HistoryQuery{For: &tool.Principal{ID: recs[0].Principal, Tenant: recs[0].Tenant}})
	require.NoError(t, err)
	assert.Empty(t, recs, "a principal named as another's kept form reads its records")
}
