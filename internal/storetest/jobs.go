package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// JobTools returns the registry the Jobs contract runs its jobs with:
// echo answers at once with who asked ("acme/alice: hi"), fail fails with
// a tool error, and hold starts (saying so on started, when it is not nil)
// and waits until its call is cancelled.
func JobTools(started chan<- string) *registry.Registry {
	type note struct {
		Note string `json:"note"`
	}
	reg := registry.New()
	reg.MustRegister(
		tool.Func("echo", "Echo a note, with who asked", func(ctx context.Context, in note) (string, error) {
			p, _ := tool.PrincipalFrom(ctx)
			return fmt.Sprintf("%s/%s: %s", p.Tenant, p.ID, in.Note), nil
		}),
		tool.Func("fail", "Fail", func(context.Context, note) (string, error) {
			return "", errors.New("the tool failed on purpose")
		}),
		tool.Func("hold", "Hold until cancelled", func(ctx context.Context, in note) (string, error) {
			if started != nil {
				started <- in.Note
			}
			<-ctx.Done()
			return "", ctx.Err()
		}),
	)
	return reg
}

// callEcho is a tool that answers with the call it runs, as JSON: the
// Jobs contract checks that a job runs as the call submitted.
type callEcho struct{}

func (callEcho) Spec() tool.Spec {
	return tool.Spec{Name: "call_echo", Description: "Answer with the call as run", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (callEcho) Run(_ context.Context, c tool.Call) (*tool.Result, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return &tool.Result{CallID: c.ID, Tool: c.Name, Status: tool.StatusSucceeded, Content: []tool.Content{tool.TextContent(string(b))}}, nil
}

// Jobs runs the contract of executor.JobStore, as a program sees it
// through an executor's Submit, Status, Wait, Cancel and Jobs. open returns
// an executor over reg (JobTools) whose jobs the store under test keeps,
// a new empty store for each subtest.
func Jobs(t *testing.T, open func(t *testing.T, reg *registry.Registry) *executor.Executor) {
	ctx := context.Background()
	call := func(name, note string) tool.Call {
		return tool.Call{ID: "call-" + note, Name: name, Args: json.RawMessage(fmt.Sprintf(`{"note":%q}`, note)), Agent: "agent-" + name}
	}
	wait := func(t *testing.T, ex *executor.Executor, id executor.JobID) *tool.Result {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		res, err := ex.Wait(wctx, id)
		if res == nil {
			t.Fatalf("Wait(%s): no result (%v)", id, err)
		}
		if !errors.Is(err, res.Err()) && err != res.Err() {
			t.Errorf("Wait(%s): error %v, want the result's own error %v", id, err, res.Err())
		}
		return res
	}

	t.Run("a job runs, as its submitter, and its status says how it ended", func(t *testing.T) {
		ex := open(t, JobTools(nil))
		pctx := tool.WithPrincipal(ctx, tool.Principal{ID: "alice", Tenant: "acme"})
		before := time.Now()
		id, err := ex.Submit(pctx, call("echo", "hi"))
		if err != nil {
			t.Fatalf("Submit: %v", err)
		}
		res := wait(t, ex, id)
		if !res.OK() || res.Text() != "acme/alice: hi" {
			t.Fatalf("the job's result: %+v (text %q), want acme/alice: hi", res, res.Text())
		}
		st, err := ex.StatusContext(ctx, id)
		if err != nil {
			t.Fatalf("Status: %v", err)
		}
		if st.ID != id || st.State != executor.JobDone || st.CallID != "call-hi" || st.Tool != "echo" || st.Agent != "agent-echo" || st.Result == nil || st.Result.Text() != "acme/alice: hi" {
			t.Errorf("Status = %+v", st)
		}
		// Times come from the store's clock (a database's), which may be
		// a little off this one's: they are ordered, and near now.
		if st.SubmittedAt.Before(before.Add(-time.Minute)) || st.StartedAt.Before(st.SubmittedAt) || st.CompletedAt.Before(st.StartedAt) {
			t.Errorf("times out of order: submitted %v, started %v, completed %v", st.SubmittedAt, st.StartedAt, st.CompletedAt)
		}
	})

	t.Run("a failed job's Wait returns its result and its error", func(t *testing.T) {
		ex := open(t, JobTools(nil))
		id, err := ex.Submit(ctx, call("fail", "x"))
		if err != nil {
			t.Fatal(err)
		}
		res := wait(t, ex, id)
		if res.Error == nil || res.Error.Code != tool.CodeToolError || res.Status != tool.StatusFailed {
			t.Errorf("result %+v, want a tool error", res)
		}
	})

	t.Run("unknown ids are not found", func(t *testing.T) {
		ex := open(t, JobTools(nil))
		const id = executor.JobID("job-unknown")
		if _, err := ex.StatusContext(ctx, id); !errors.Is(err, executor.ErrJobNotFound) {
			t.Errorf("Status: %v, want ErrJobNotFound", err)
		}
		if _, err := ex.Wait(ctx, id); !errors.Is(err, executor.ErrJobNotFound) {
			t.Errorf("Wait: %v, want ErrJobNotFound", err)
		}
		if err := ex.CancelContext(ctx, id); !errors.Is(err, executor.ErrJobNotFound) {
			t.Errorf("Cancel: %v, want ErrJobNotFound", err)
		}
	})

	t.Run("Cancel stops a running job, which ends cancelled; cancelling it again does nothing", func(t *testing.T) {
		started := make(chan string, 1)
		ex := open(t, JobTools(started))
		id, err := ex.Submit(ctx, call("hold", "h"))
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-started:
		case <-time.After(time.Minute):
			t.Fatal("the job never started")
		}
		if st, err := ex.StatusContext(ctx, id); err != nil || st.State != executor.JobRunning {
			t.Errorf("Status of a running job = %+v, %v; want running", st, err)
		}
		if err := ex.CancelContext(ctx, id); err != nil {
			t.Fatalf("Cancel: %v", err)
		}
		res := wait(t, ex, id)
		if res.Status != tool.StatusCancelled {
			t.Errorf("result %+v, want cancelled", res)
		}
		if err := ex.CancelContext(ctx, id); err != nil {
			t.Errorf("Cancel of a finished job: %v, want nil", err)
		}
		if st, err := ex.StatusContext(ctx, id); err != nil || st.State != executor.JobDone || st.Result == nil || st.Result.Status != tool.StatusCancelled {
			t.Errorf("Status after a second Cancel = %+v, %v; want done, cancelled", st, err)
		}
	})

	t.Run("a Wait that gives up leaves the job running", func(t *testing.T) {
		started := make(chan string, 1)
		ex := open(t, JobTools(started))
		id, err := ex.Submit(ctx, call("hold", "h"))
		if err != nil {
			t.Fatal(err)
		}
		<-started
		wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if res, err := ex.Wait(wctx, id); res != nil || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Wait under a short deadline = %v, %v; want no result and the deadline", res, err)
		}
		if st, err := ex.StatusContext(ctx, id); err != nil || st.State != executor.JobRunning {
			t.Errorf("Status = %+v, %v; want still running", st, err)
		}
		if err := ex.CancelContext(ctx, id); err != nil {
			t.Fatal(err)
		}
		wait(t, ex, id)
	})

	t.Run("a job outlives the context that submitted it", func(t *testing.T) {
		started := make(chan string, 1)
		ex := open(t, JobTools(started))
		sctx, cancel := context.WithCancel(ctx)
		id, err := ex.Submit(sctx, call("hold", "h"))
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		<-started
		if st, err := ex.StatusContext(ctx, id); err != nil || st.State == executor.JobDone {
			t.Errorf("Status after the submitter's context ended = %+v, %v; want still running", st, err)
		}
		if err := ex.CancelContext(ctx, id); err != nil {
			t.Fatal(err)
		}
		wait(t, ex, id)
	})

	t.Run("Submit under an ended context fails", func(t *testing.T) {
		ex := open(t, JobTools(nil))
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if id, err := ex.Submit(cctx, call("echo", "x")); err == nil {
			t.Errorf("Submit under a cancelled context gave job %s", id)
		}
	})

	t.Run("Jobs lists in submission order, filtered by state, tool and agent", func(t *testing.T) {
		started := make(chan string, 1)
		ex := open(t, JobTools(started))
		var ids []executor.JobID
		for _, c := range []tool.Call{call("echo", "1"), call("fail", "2"), call("echo", "3")} {
			id, err := ex.Submit(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			wait(t, ex, id)
			ids = append(ids, id)
		}
		held, err := ex.Submit(ctx, call("hold", "4"))
		if err != nil {
			t.Fatal(err)
		}
		<-started
		list := func(f executor.JobFilter) []executor.JobID {
			t.Helper()
			jobs, err := ex.JobsContext(ctx, f)
			if err != nil {
				t.Fatalf("Jobs(%+v): %v", f, err)
			}
			var out []executor.JobID
			for _, j := range jobs {
				out = append(out, j.ID)
			}
			return out
		}
		check := func(what string, got, want []executor.JobID) {
			t.Helper()
			if !slices.Equal(got, want) {
				t.Errorf("%s = %v, want %v", what, got, want)
			}
		}
		check("Jobs()", list(executor.JobFilter{}), append(slices.Clone(ids), held))
		check("Jobs(done)", list(executor.JobFilter{States: []executor.JobState{executor.JobDone}}), ids)
		check("Jobs(running)", list(executor.JobFilter{States: []executor.JobState{executor.JobRunning}}), []executor.JobID{held})
		check("Jobs(tool echo)", list(executor.JobFilter{Tool: "echo"}), []executor.JobID{ids[0], ids[2]})
		check("Jobs(agent of fail)", list(executor.JobFilter{Agent: "agent-fail"}), []executor.JobID{ids[1]})
		if err := ex.CancelContext(ctx, held); err != nil {
			t.Fatal(err)
		}
		wait(t, ex, held)
	})

	t.Run("a job names its principal, and Jobs selects a principal in its tenant only", func(t *testing.T) {
		ex := open(t, JobTools(nil))
		byCall := map[executor.JobID]string{}
		for i, p := range principals {
			c := tool.Call{ID: fmt.Sprint("call-", i), Name: "echo", Args: json.RawMessage(`{"note":"x"}`), Principal: p}
			id, err := ex.Submit(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			wait(t, ex, id)
			byCall[id] = c.ID
			st, err := ex.StatusContext(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if st.Principal != p.ID || st.Tenant != p.Tenant {
				t.Errorf("job of %q of %q says %q of %q", p.ID, p.Tenant, st.Principal, st.Tenant)
			}
		}
		for _, c := range principalQueries {
			jobs, err := ex.JobsContext(ctx, executor.JobFilter{For: c.who, Tenant: c.tenant})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, j := range jobs {
				got = append(got, byCall[j.ID])
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("Jobs(%s) = %v, want %v", c.what, got, c.want)
			}
		}
	})

	t.Run("a job runs as the call that was submitted", func(t *testing.T) {
		reg := JobTools(nil)
		reg.MustRegister(callEcho{})
		ex := open(t, reg)
		c := tool.Call{ID: "whole", Name: "call_echo", Args: json.RawMessage(`{"note":"n"}`),
			Principal: tool.Principal{ID: "alice", Tenant: "acme", Roles: []string{"dev", "ops"}},
			Agent:     "coder", Provider: "anthropic", Session: "s9", TraceID: "t1", SpanID: "p1", Timeout: time.Minute}
		id, err := ex.Submit(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		// Who the job acts for, with its roles, and the session its
		// approvals are scoped to, are the submitter's: a job run by
		// another instance must not run as less, more or someone else.
		want, _ := json.Marshal(c)
		if res := wait(t, ex, id); !res.OK() || res.Text() != string(want) {
			t.Errorf("the job ran the call\n%s\nwant\n%s", res.Text(), want)
		}
	})

	t.Run("a job cancelled before it starts never runs", func(t *testing.T) {
		started := make(chan string, 1)
		reg := JobTools(nil)
		ran := make(chan string, 1)
		locked := tool.WithResources(func(json.RawMessage) []tool.Resource {
			return []tool.Resource{{Key: "storetest:one", Access: tool.Write}}
		})
		type note struct {
			Note string `json:"note"`
		}
		reg.MustRegister(
			tool.Func("hold_lock", "Hold the lock until cancelled", func(ctx context.Context, in note) (string, error) {
				started <- in.Note
				<-ctx.Done()
				return "", ctx.Err()
			}, locked),
			tool.Func("after_lock", "Run after the lock", func(_ context.Context, in note) (string, error) {
				ran <- in.Note
				return "ran", nil
			}, locked),
		)
		ex := open(t, reg)
		first, err := ex.Submit(ctx, call("hold_lock", "1"))
		if err != nil {
			t.Fatal(err)
		}
		<-started
		second, err := ex.Submit(ctx, call("after_lock", "2"))
		if err != nil {
			t.Fatal(err)
		}
		if err := ex.CancelContext(ctx, second); err != nil {
			t.Fatalf("Cancel of a job that has not started: %v", err)
		}
		if err := ex.CancelContext(ctx, first); err != nil {
			t.Fatal(err)
		}
		wait(t, ex, first)
		if res := wait(t, ex, second); res.Status != tool.StatusCancelled {
			t.Errorf("the job cancelled before it started ended %+v, want cancelled", res)
		}
		select {
		case <-ran:
			t.Error("a job cancelled before it started ran")
		default:
		}
	})

	t.Run("ids are unique", func(t *testing.T) {
		ex := open(t, JobTools(nil))
		seen := map[executor.JobID]bool{}
		for i := range 20 {
			id, err := ex.Submit(ctx, call("echo", fmt.Sprint(i)))
			if err != nil {
				t.Fatal(err)
			}
			if seen[id] || id == "" {
				t.Fatalf("job id %q given twice", id)
			}
			// When Submit returns, the job is kept: any instance finds it.
			if st, err := ex.StatusContext(ctx, id); err != nil || st.ID != id || st.Tool != "echo" {
				t.Errorf("Status right after Submit = %+v, %v; want the job", st, err)
			}
			seen[id] = true
		}
		for id := range seen {
			wait(t, ex, id)
		}
	})
}
