package postgres_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A job runs as the principal that submitted it, byte for byte, on
// whichever instance runs it. A principal's id, tenant or session may hold
// any bytes (a header a proxy copies, an identity provider's subject), and
// JSON turns every invalid UTF-8 byte into U+FFFD: two principals "alice"
// + 0xff and "alice" + 0xfe, and a third named "alice" + U+FFFD, must not
// all run their jobs as the same one (sharing its rate limits, its
// remembered approvals, its tool's view of who calls).
func TestAJobRunsAsExactlyItsPrincipal(t *testing.T) {
	dsn := database(t)
	ctx := within(t, time.Minute)

	var mu sync.Mutex
	ranAs := map[string]tool.Call{} // call id -> the call as the extensions saw it
	seen := map[string]tool.Principal{}
	reg := registry.New()
	reg.MustRegister(tool.Func("whoami", "Say who calls", func(ctx context.Context, _ struct{}) (string, error) {
		p, _ := tool.PrincipalFrom(ctx)
		mu.Lock()
		seen[p.ID+"/"+p.Tenant] = p
		mu.Unlock()
		return "ok", nil
	}, tool.ReadOnly()))
	// What the extensions (rate limits, approvals, audit) key by.
	record := extension.Func("record", 0, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			mu.Lock()
			c := req.Call
			c.Args = nil
			ranAs[c.ID] = c
			mu.Unlock()
			return next(ctx, req)
		}
	})

	submitter := postgres.New(newPool(t, dsn), postgres.WithJobs(postgres.JobsConfig{Workers: postgres.NoWorkers}))
	t.Cleanup(submitter.Close)
	exA, err := executor.New(reg, executor.WithJobStore(submitter.Jobs))
	require.NoError(t, err)
	worker := postgres.New(newPool(t, dsn), postgres.WithJobs(postgres.JobsConfig{Workers: 2}))
	t.Cleanup(worker.Close)
	exB, err := executor.New(reg, executor.WithJobStore(worker.Jobs), executor.WithExtensions(record))
	require.NoError(t, err)

	calls := []tool.Call{
		{ID: "ff", Principal: tool.Principal{ID: "alice\xff", Tenant: "acme"}, Session: "s"},
		{ID: "fe", Principal: tool.Principal{ID: "alice\xfe", Tenant: "acme"}, Session: "s"},
		{ID: "fffd", Principal: tool.Principal{ID: "alice\uFFFD", Tenant: "acme"}, Session: "s"},
		{ID: "tenant", Principal: tool.Principal{ID: "bob", Tenant: "acme\xff", Roles: []string{"ops\xff"}}, Session: "s\xff"},
		{ID: "nul", Principal: tool.Principal{ID: "carol\x00\xff", Tenant: "acme"}, Session: "s"},
	}
	var ids []executor.JobID
	for _, c := range calls {
		c.Name, c.Args = "whoami", json.RawMessage(`{}`)
		id, err := exA.Submit(ctx, c)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	for i, id := range ids {
		res, err := exB.Wait(ctx, id)
		require.NoError(t, err, "job %s", calls[i].ID)
		require.Equal(t, tool.StatusSucceeded, res.Status)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, c := range calls {
		got := ranAs[c.ID]
		assert.Equal(t, c.Principal, got.Principal, "job %q ran as another principal", c.ID)
		assert.Equal(t, c.Session, got.Session, "job %q ran in another session", c.ID)
		assert.Equal(t, c.Principal, seen[c.Principal.ID+"/"+c.Principal.Tenant], "job %q: the tool saw another principal", c.ID)
	}
	assert.Len(t, seen, len(calls), "each principal's job ran as itself")
}

// A job whose kept call cannot be read is not run as the stripped call
// kept for lists, which names no principal (the anonymous caller); a job
// kept by an older version (JSON under "whole") still runs as its
// principal.
func TestAJobWhoseCallCannotBeReadIsNotRunAnonymously(t *testing.T) {
	stripped := tool.Call{ID: "c", Name: "whoami"}
	_, err := postgres.CallOfJob(stripped, []byte("not gob"), nil)
	require.Error(t, err)
	_, err = postgres.CallOfJob(stripped, nil, []byte("{not json"))
	require.Error(t, err)

	whole, err := json.Marshal(tool.Call{ID: "c", Name: "whoami", Principal: tool.Principal{ID: "bob\x00", Tenant: "acme"}})
	require.NoError(t, err)
	c, err := postgres.CallOfJob(stripped, nil, whole)
	require.NoError(t, err)
	assert.Equal(t, tool.Principal{ID: "bob\x00", Tenant: "acme"}, c.Principal)
}
