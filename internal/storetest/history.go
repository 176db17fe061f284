package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// History runs the contract of executor.HistoryStore, as a program sees it
// through an executor's History: open returns an executor over reg
// (JobTools) whose history the store under test keeps, at least 100
// records, a new empty store for each subtest.
func History(t *testing.T, open func(t *testing.T, reg *registry.Registry) *executor.Executor) {
	ctx := context.Background()
	run := func(t *testing.T, ex *executor.Executor, name, agent string, n int) {
		t.Helper()
		c := tool.Call{ID: fmt.Sprint(name, "-", n), Name: name, Agent: agent, Session: "s1", Args: json.RawMessage(fmt.Sprintf(`{"note":"%d"}`, n))}
		if _, err := ex.Execute(ctx, c); err != nil && name != "fail" {
			t.Fatalf("Execute %s: %v", c.ID, err)
		}
	}
	query := func(t *testing.T, ex *executor.Executor, q executor.HistoryQuery) []executor.Record {
		t.Helper()
		recs, err := ex.HistoryContext(ctx, q)
		if err != nil {
			t.Fatalf("History(%+v): %v", q, err)
		}
		return recs
	}
	callIDs := func(recs []executor.Record) []string {
		var out []string
		for _, r := range recs {
			out = append(out, r.CallID)
		}
		return out
	}
	check := func(t *testing.T, what string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}

	t.Run("records are the finished calls, oldest first, numbered, with how they ended", func(t *testing.T) {
		ex := open(t, JobTools(nil))
		run(t, ex, "echo", "ann", 1)
		run(t, ex, "fail", "bob", 2)
		run(t, ex, "echo", "bob", 3)
		recs := query(t, ex, executor.HistoryQuery{})
		check(t, "History()", callIDs(recs), []string{"echo-1", "fail-2", "echo-3"})
		if len(recs) != 3 {
			return
		}
		for i := 1; i < len(recs); i++ {
			if recs[i].Seq <= recs[i-1].Seq {
				t.Errorf("Seq %d after %d: records are numbered in the order kept", recs[i].Seq, recs[i-1].Seq)
			}
		}
		ok, failed := recs[0], recs[1]
		if ok.Tool != "echo" || ok.Agent != "ann" || ok.Session != "s1" || ok.Status != tool.StatusSucceeded || ok.Code != "" || ok.Attempts != 1 || ok.StartedAt.IsZero() || ok.Duration < 0 {
			t.Errorf("record of a succeeded call: %+v", ok)
		}
		if failed.Status != tool.StatusFailed || failed.Code != tool.CodeToolError || failed.Message == "" {
			t.Errorf("record of a failed call: %+v", failed)
		}
	})

	t.Run("Limit keeps the newest, filters select by tool, agent and status", func(t *testing.T) {
		ex := open(t, JobTools(nil))
		for i := range 6 {
			name := []string{"echo", "fail"}[i%2]
			run(t, ex, name, fmt.Sprint("agent-", i%3), i)
		}
		check(t, "Limit 2", callIDs(query(t, ex, executor.HistoryQuery{Limit: 2})), []string{"echo-4", "fail-5"})
		check(t, "tool fail", callIDs(query(t, ex, executor.HistoryQuery{Tool: "fail"})), []string{"fail-1", "fail-3", "fail-5"})
		check(t, "agent-0", callIDs(query(t, ex, executor.HistoryQuery{Agent: "agent-0"})), []string{"echo-0", "fail-3"})
		check(t, "succeeded, newest 2", callIDs(query(t, ex, executor.HistoryQuery{Status: tool.StatusSucceeded, Limit: 2})), []string{"echo-2", "echo-4"})
		check(t, "no match", callIDs(query(t, ex, executor.HistoryQuery{Tool: "nothing"})), nil)
	})

	t.Run("filters combine: a record matches every one given", func(t *testing.T) {
		ex := open(t, JobTools(nil))
		for i := range 6 {
			name := []string{"echo", "fail"}[i%2]
			run(t, ex, name, fmt.Sprint("agent-", i%3), i)
		}
		recs := query(t, ex, executor.HistoryQuery{})
		if len(recs) != 6 {
			t.Fatalf("History() = %v", callIDs(recs))
		}
		check(t, "tool fail, agent-0", callIDs(query(t, ex, executor.HistoryQuery{Tool: "fail", Agent: "agent-0"})), []string{"fail-3"})
		check(t, "tool echo, failed", callIDs(query(t, ex, executor.HistoryQuery{Tool: "echo", Status: tool.StatusFailed})), nil)
		check(t, "agent-1, failed", callIDs(query(t, ex, executor.HistoryQuery{Agent: "agent-1", Status: tool.StatusFailed})), []string{"fail-1"})
		check(t, "tool echo, since the third's start", callIDs(query(t, ex, executor.HistoryQuery{Tool: "echo", Since: recs[2].StartedAt})), []string{"echo-2", "echo-4"})
		// Numbered from 1, and a failed call's record names its tool and agent.
		if recs[0].Seq == 0 {
			t.Errorf("the first record's Seq is 0: records are numbered from 1")
		}
		if f := recs[1]; f.Tool != "fail" || f.Agent != "agent-1" || f.Session != "s1" || f.Attempts != 1 || f.StartedAt.IsZero() {
			t.Errorf("record of a failed call: %+v", f)
		}
	})

	t.Run("a record names its principal, and a query selects a principal in its tenant only", func(t *testing.T) {
		ex := open(t, JobTools(nil))
		for i, p := range principals {
			c := tool.Call{ID: fmt.Sprint("call-", i), Name: "echo", Args: json.RawMessage(`{"note":"x"}`), Principal: p}
			if _, err := ex.Execute(ctx, c); err != nil {
				t.Fatalf("Execute as %q of %q: %v", p.ID, p.Tenant, err)
			}
		}
		recs := query(t, ex, executor.HistoryQuery{})
		if len(recs) != len(principals) {
			t.Fatalf("History() = %v", callIDs(recs))
		}
		for i, r := range recs {
			if r.Principal != principals[i].ID || r.Tenant != principals[i].Tenant {
				t.Errorf("record %s names %q of %q, want %q of %q", r.CallID, r.Principal, r.Tenant, principals[i].ID, principals[i].Tenant)
			}
		}
		for _, c := range principalQueries {
			check(t, c.what, callIDs(query(t, ex, executor.HistoryQuery{For: c.who, Tenant: c.tenant})), c.want)
		}
	})

	t.Run("Since is inclusive and Until exclusive, on StartedAt", func(t *testing.T) {
		ex := open(t, JobTools(nil))
		for i := range 3 {
			run(t, ex, "echo", "ann", i)
		}
		recs := query(t, ex, executor.HistoryQuery{})
		if len(recs) != 3 {
			t.Fatalf("History() = %v", callIDs(recs))
		}
		mid := recs[1].StartedAt
		check(t, "Since the second's start", callIDs(query(t, ex, executor.HistoryQuery{Since: mid})), []string{"echo-1", "echo-2"})
		check(t, "Until the second's start", callIDs(query(t, ex, executor.HistoryQuery{Until: mid})), []string{"echo-0"})
		check(t, "Since and Until the same", callIDs(query(t, ex, executor.HistoryQuery{Since: mid, Until: mid})), nil)
		// A store may keep times to the microsecond (PostgreSQL does).
		check(t, "Until a microsecond after", callIDs(query(t, ex, executor.HistoryQuery{Since: mid, Until: mid.Add(time.Microsecond)})), []string{"echo-1"})
	})

	t.Run("a job's record names the job", func(t *testing.T) {
		ex := open(t, JobTools(nil))
		id, err := ex.Submit(ctx, tool.Call{ID: "job-call", Name: "echo", Args: json.RawMessage(`{"note":"j"}`)})
		if err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if _, err := ex.Wait(wctx, id); err != nil {
			t.Fatal(err)
		}
		// The record is kept as the call ends; a shared store may keep it
		// a moment after Wait has seen the result.
		var recs []executor.Record
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if recs = query(t, ex, executor.HistoryQuery{}); len(recs) > 0 {
				break
			}
		}
		if len(recs) != 1 || recs[0].JobID != id || recs[0].CallID != "job-call" {
			t.Errorf("History() = %+v, want one record of job %s", recs, id)
		}
	})

	t.Run("History asks under its context", func(t *testing.T) {
		ex := open(t, JobTools(nil))
		run(t, ex, "echo", "ann", 1)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := ex.HistoryContext(cctx, executor.HistoryQuery{}); err == nil {
			t.Error("History under a cancelled context succeeded")
		}
	})
}

// principals are the principals whose calls the principal subtests make,
// call-0 to call-6: alice in two tenants and in none, bob, two whose ids
// differ only in a byte that is not UTF-8 (a store that keeps them as text
// makes them one), and nobody.
var principals = []tool.Principal{
	{ID: "alice", Tenant: "acme"},
	{ID: "alice", Tenant: "globex"},
	{ID: "bob", Tenant: "acme"},
	{ID: "alice"},
	{ID: "eve\xff", Tenant: "acme"},
	{ID: "eve\xfe", Tenant: "acme"},
	{},
}

// principalQueries are the filters of the principal subtests (For and
// Tenant) and the calls each selects.
var principalQueries = []struct {
	what   string
	who    *tool.Principal
	tenant string
	want   []string
}{
	{"alice of acme", &tool.Principal{ID: "alice", Tenant: "acme"}, "", []string{"call-0"}},
	{"alice of globex", &tool.Principal{ID: "alice", Tenant: "globex"}, "", []string{"call-1"}},
	{"alice of no tenant", &tool.Principal{ID: "alice"}, "", []string{"call-3"}},
	{"nobody: the anonymous call, not everyone's", &tool.Principal{}, "", []string{"call-6"}},
	{"tenant acme", nil, "acme", []string{"call-0", "call-2", "call-4", "call-5"}},
	{"eve\\xff of acme", &tool.Principal{ID: "eve\xff", Tenant: "acme"}, "", []string{"call-4"}},
	{"carol of acme", &tool.Principal{ID: "carol", Tenant: "acme"}, "", nil},
	{"alice of acme, in tenant globex", &tool.Principal{ID: "alice", Tenant: "acme"}, "globex", nil},
}
