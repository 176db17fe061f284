package postgres_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool's structured output is JSON of whatever the tool read: a web
// page, an MCP server's answer, the model's own arguments echoed. JSON may
// escape a lone surrogate ("\ud800"), which encoding/json reads (as
// U+FFFD) and PostgreSQL's jsonb refuses. River keeps a job's result in
// jsonb and completes the jobs of an instance in batches: one such result
// failed every batch it was in, River put the batch back and tried again,
// and every job that finished on that instance after it (any tenant's)
// stayed "running" until another instance took them for dead and ran them
// again. The result must be kept, and the other jobs must finish.
func TestAttackS28AResultJSONBRefusesPoisonsNoOtherJob(t *testing.T) {
	dsn := database(t)
	ctx := within(t, 2*time.Minute)
	ran := make(chan struct{}, 1)
	reg := registry.New()
	reg.MustRegister(
		tool.New("fetch", "Fetch a JSON document", func(_ context.Context, c tool.Call) (*tool.Result, error) {
			var in struct {
				Doc json.RawMessage `json:"doc"`
			}
			if err := json.Unmarshal(c.Args, &in); err != nil {
				return nil, err
			}
			select {
			case ran <- struct{}{}:
			default: // run again: the test waits for the first run only
			}
			return &tool.Result{Output: in.Doc}, nil // what the page said, as it said it
		}, tool.ReadOnly()),
		tool.Func("report", "Build a report", func(context.Context, struct{}) (string, error) { return "report done", nil }, tool.ReadOnly()),
	)
	s := postgres.New(newPool(t, dsn), postgres.WithJobs(postgres.JobsConfig{Workers: 2}))
	t.Cleanup(func() {
		// Bounded: on the old code the stuck completions held Stop.
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Jobs.Stop(sctx)
		s.Close()
	})
	ex, err := executor.New(reg, executor.WithJobStore(s.Jobs))
	require.NoError(t, err)

	for _, doc := range []string{`{"s":"\ud800"}`, `{"s":"\uDFFF and \u0000"}`, `["\ud83d\ude00","\udc00\ud800"]`} {
		poison, err := ex.Submit(ctx, tool.Call{ID: "mallory", Name: "fetch", Args: json.RawMessage(`{"doc":` + doc + `}`),
			Principal: tool.Principal{ID: "mallory", Tenant: "evil"}})
		require.NoError(t, err)
		<-ran // its result is on its way to the database

		innocent, err := ex.Submit(ctx, tool.Call{ID: "alice", Name: "report", Args: json.RawMessage(`{}`),
			Principal: tool.Principal{ID: "alice", Tenant: "acme"}})
		require.NoError(t, err)
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		res, err := ex.Wait(wctx, innocent)
		cancel()
		require.NoError(t, err, "%s: another tenant's job, run after it on the same instance, never finished", doc)
		assert.Equal(t, tool.StatusSucceeded, res.Status)

		wctx, cancel = context.WithTimeout(ctx, 30*time.Second)
		res, err = ex.Wait(wctx, poison)
		cancel()
		require.NoError(t, err, "%s: the job that returned it never finished: %+v", doc, res)
		require.Equal(t, tool.StatusSucceeded, res.Status, "%+v", res.Error)
		assert.Equal(t, doc, string(res.Output), "the result as the tool returned it")
	}
}

// tenantJobs is a job store's view for one tenant, as a host builds it.
func tenantJobs(t *testing.T, ctx context.Context, ex *executor.Executor, tenant string) []executor.JobStatus {
	t.Helper()
	sts, err := ex.JobsContext(ctx, executor.JobFilter{Tenant: tenant})
	require.NoError(t, err, "tenant %q", tenant)
	return sts
}

// A host that reads big files raises the executor's output cap
// (executor.WithMaxOutputBytes); JSON writes a control byte as six
// (\u0001), so a tool's 6 MiB of binary output is a result River refuses
// to record (over its 32 MB). The job failed its attempt with "record
// the result", River ran the tool again (and again): the model made one
// read cost three, and the result was lost each time. A result too big
// to keep is kept cut, saying so, and the tool runs once.
func TestAttackS28AHugeResultRunsOnce(t *testing.T) {
	dsn := database(t)
	ctx := within(t, 2*time.Minute)
	var runs atomic.Int64
	huge := strings.Repeat("\x01", 6<<20)
	reg := registry.New()
	reg.MustRegister(tool.Func("read", "Read a file", func(context.Context, struct{}) (string, error) {
		runs.Add(1)
		return huge, nil
	}, tool.ReadOnly()))
	s := postgres.New(newPool(t, dsn), postgres.WithJobs(postgres.JobsConfig{Workers: 1, MaxAttempts: 2}))
	t.Cleanup(s.Close)
	ex, err := executor.New(reg, executor.WithJobStore(s.Jobs), executor.WithMaxOutputBytes(8<<20))
	require.NoError(t, err)
	id, err := ex.Submit(ctx, tool.Call{ID: "r", Name: "read", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	res, err := ex.Wait(ctx, id)
	require.NoError(t, err, "%+v", res.Error)
	assert.EqualValues(t, 1, runs.Load(), "the tool ran again because its result could not be kept")
	assert.Equal(t, tool.StatusSucceeded, res.Status)
	assert.Equal(t, true, res.Metadata["truncated"], "the result says it was cut")
	require.NotEmpty(t, res.Content)
	assert.Contains(t, res.Content[0].Text, "left out")
}
