package executor_test

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

type s21qHoldKey struct{}

// s21qTool writes file:<path>. Its line says how a run ends: "panic",
// "goexit", "declare-panic" (declaring its resources panics), or a normal
// write; a run whose context carries a s21qHoldKey channel reports on it
// that it is inside, then waits on it to be let go.
func s21qTool() tool.Tool {
	return tool.New("w", "Write a file", func(ctx context.Context, c tool.Call) (*tool.Result, error) {
		var a scPathArgs
		_ = json.Unmarshal(c.Args, &a)
		if hold, ok := ctx.Value(s21qHoldKey{}).(chan struct{}); ok {
			hold <- struct{}{}
			<-hold
		}
		switch a.Line {
		case "panic":
			panic("run failed")
		case "goexit":
			runtime.Goexit()
		}
		return &tool.Result{Content: []tool.Content{tool.TextContent("written")}}, nil
	}, tool.WithResources(func(args json.RawMessage) []tool.Resource {
		var a scPathArgs
		_ = json.Unmarshal(args, &a)
		if a.Line == "declare-panic" {
			panic("declaring")
		}
		return []tool.Resource{{Key: "file:" + a.Path, Access: tool.Write}}
	}), tool.WithTimeout(time.Minute))
}

// Two runs of a hedged call at once: the first writes f, the second is
// rewritten to g, which moves the call's place and keeps f's for the first
// run, and then ends badly: its backend panics or ends its goroutine, its
// lock is refused (x holds g), or declaring its resources panics. f stays
// locked while the first run writes it, and once the call has returned
// every lock comes back: nothing kept is left, nothing is released twice
// (the next writers of f and g get them).
func TestAttackS21QHedgedRunEndingBadlyLeavesNoLock(t *testing.T) {
	for _, how := range []string{"panic", "goexit", "refused", "declare-panic"} {
		t.Run(how, func(t *testing.T) {
			// In a synctest bubble, synctest.Wait returns once every run has returned
			// and every other goroutine waits: no lock may be left then.
			synctest.Test(t, func(t *testing.T) {
				var ex *executor.Executor
				run := func(ctx context.Context, id, path, line string) *tool.Result {
					res, _ := ex.Execute(ctx, scCall(id, "w", scPathArgs{Path: path, Line: line}))
					return res
				}
				var b, second *tool.Result
				hold1, holdX := make(chan struct{}), make(chan struct{})
				hedge := extension.Func("hedge", extension.PriorityDefault, func(next extension.Handler) extension.Handler {
					return func(ctx context.Context, req *extension.Request) *tool.Result {
						if req.Call.ID != "a" {
							return next(ctx, req)
						}
						first := make(chan *tool.Result, 1)
						r1, r2 := *req, *req
						go func() { first <- next(context.WithValue(ctx, s21qHoldKey{}, hold1), &r1) }()
						<-hold1 // the first run writes f
						x := make(chan *tool.Result, 1)
						line := how
						if how == "refused" {
							go func() { x <- run(context.WithValue(context.Background(), s21qHoldKey{}, holdX), "x", "g", "x") }()
							<-holdX // x writes g
							line = "a"
						}
						r2.Call.Args = json.RawMessage(`{"path":"g","line":"` + line + `"}`)
						second = next(ctx, &r2)
						if how == "refused" {
							holdX <- struct{}{}
							assert.Nil(t, (<-x).Error)
						}
						b = run(context.Background(), "b", "f", "b")
						hold1 <- struct{}{}
						return <-first
					}
				})
				ex = executor.MustNew(scRegistry(t, s21qTool()), executor.WithExtensions(hedge),
					executor.WithDetach(), executor.WithConflictPolicy(executor.Refuse))

				a := run(context.Background(), "a", "f", "a")
				require.Nil(t, a.Error, "%v", a.Error)
				require.NotNil(t, second)
				assert.NotNil(t, second.Error, "the second run ended badly")
				require.NotNil(t, b)
				require.NotNil(t, b.Error, "b wrote f while the first run of a wrote it")
				assert.Equal(t, tool.CodeConflict, b.Error.Code, "%v", b.Error)
				synctest.Wait()
				require.Zero(t, executor.LockedKeys(ex), "a lock was left")
				for _, path := range []string{"f", "g"} {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					res := run(ctx, "c", path, "c")
					cancel()
					assert.Nil(t, res.Error, "%s: %v", path, res.Error)
				}
				assert.Zero(t, executor.LockedKeys(ex))
			})
		})
	}
}
