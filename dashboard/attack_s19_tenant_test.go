package dashboard_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// tenantHeader is WithTenant's function for these tests: the tenant a
// front proxy names in X-Tenant, "" included; no header, no tenant.
func tenantHeader(r *http.Request) (string, bool) {
	v, ok := r.Header["X-Tenant"]
	if !ok || len(v) != 1 {
		return "", false
	}
	return v[0], true
}

// asTenant is the token and the tenant of a reviewer.
func asTenant(tenant string) http.Header {
	hdr := bearer()
	hdr.Set("X-Tenant", tenant)
	return hdr
}

// openStream opens an event stream as hdr; the caller closes its body.
func (f *fixture) openStream(t *testing.T, hdr http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.srv.URL+"/api/events", nil)
	require.NoError(t, err)
	req.Header = hdr
	res, err := client().Do(req)
	require.NoError(t, err)
	return res
}

// The bound on open event streams was one for every tenant: acme's pages
// (a script reopening /api/events) took all of them, and globex's
// reviewer got 503 for as long as acme kept them. Now a tenant that holds
// fewer streams than another by two or more is given a stream of the
// other's: the newest one of the tenant that holds the most is ended.
func TestAttackS19ATenantCannotTakeEveryEventStream(t *testing.T) {
	f := newFixture(t, dashboard.WithTenant(tenantHeader), dashboard.WithMaxStreams(3))
	ended := make(chan int, 3)
	for i := range 3 {
		res := f.openStream(t, asTenant("acme"))
		require.Equal(t, http.StatusOK, res.StatusCode, "acme's stream %d", i)
		defer res.Body.Close()
		go func() {
			_, _ = io.Copy(io.Discard, res.Body) // until the server ends it
			ended <- i
		}()
	}
	more := f.openStream(t, asTenant("acme"))
	more.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, more.StatusCode, "acme is at the bound")

	globex := f.openStream(t, asTenant("globex"))
	defer globex.Body.Close()
	require.Equal(t, http.StatusOK, globex.StatusCode, "globex's reviewer is starved by acme's pages")
	select {
	case i := <-ended:
		assert.Equal(t, 2, i, "acme's newest stream makes room")
	case <-time.After(10 * time.Second):
		t.Fatal("no stream of acme's was ended: four are open, over the bound of three")
	}

	// Two of acme's and one of globex's: neither may take another's now.
	for _, tenant := range []string{"acme", "globex"} {
		res := f.openStream(t, asTenant(tenant))
		res.Body.Close()
		assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode, tenant)
		assert.NotEmpty(t, res.Header.Get("Retry-After"))
	}
	select {
	case i := <-ended:
		t.Errorf("acme's stream %d was ended too", i)
	default:
	}
}

// A page of the principals of no tenant asked for its last 3 calls and
// was given those of the last 3 calls of every tenant that were its own:
// none, while acme was busy. How many it was shown counted acme's calls.
func TestAttackS19PageOfNoTenantShowsItsCallsWhateverOthersDo(t *testing.T) {
	f := newFixture(t, dashboard.WithTenant(tenantHeader))
	run := func(tenant, text string) {
		res, err := f.ex.Execute(context.Background(), tool.Call{ID: "c-" + text, Name: "echo",
			Args: json.RawMessage(`{"text":"` + text + `"}`), Principal: tool.Principal{ID: "bob", Tenant: tenant}})
		require.NoError(t, err)
		require.True(t, res.OK(), "%v", res.Error)
	}
	run("", "mine-1")
	run("", "mine-2")
	for _, text := range []string{"acme-1", "acme-2", "acme-3"} {
		run("acme", text)
	}
	_, body := f.get(t, "/api/history?limit=3", asTenant(""))
	var calls []dashboard.Call
	require.NoError(t, json.Unmarshal([]byte(body), &calls), body)
	var ids []string
	for _, c := range calls {
		ids = append(ids, c.CallID)
	}
	assert.Equal(t, []string{"c-mine-2", "c-mine-1"}, ids)
	assert.NotContains(t, body, "acme")
}

// An approval's card carried the call's agent, session and principal
// whole, where its events and its history record keep the first
// executor.MaxRecordFieldBytes of each: a caller's MiB-long session made
// every card (and every poll of /api/approvals) a MiB for each reviewer.
func TestAttackS19ApprovalCardClipsNames(t *testing.T) {
	f := newFixture(t)
	long := strings.Repeat("s", 1<<20)
	done := make(chan *tool.Result, 1)
	go func() {
		res, _ := f.ex.Execute(context.Background(), tool.Call{ID: "long", Name: "write_file", Agent: "agent-" + long, Session: "session-" + long,
			Args: json.RawMessage(`{"path":"a.txt","content":"x"}`), Principal: tool.Principal{ID: "alice-" + long, Tenant: "acme-" + long}})
		done <- res
	}()
	cards := f.waitPending(t, 1)
	c := cards[0]
	for prefix, v := range map[string]string{"agent": c.Agent, "session": c.Session, "alice": c.Principal, "acme": c.Tenant} {
		assert.LessOrEqual(t, len(v), executor.MaxRecordFieldBytes+64, "%s: %d bytes", prefix, len(v))
		assert.True(t, strings.HasPrefix(v, prefix+"-sss"), "%s is still named: %.20q", prefix, v)
	}
	_, body := f.get(t, "/api/approvals", bearer())
	assert.Less(t, len(body), 64<<10)
	require.NoError(t, f.queue.Resolve(c.ID, approval.Denied("test", "done")))
	<-done
}
