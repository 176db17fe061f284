package executor_test

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// s21qFiles counts, per file, the runs inside it of call "a" and of the
// other calls, and records a run that found the other side inside.
type s21qFiles struct {
	mu       sync.Mutex
	inside   map[string]*[2]int
	overlaps atomic.Int32
}

func (fs *s21qFiles) tool() tool.Tool {
	return tool.New("w", "Write a file", func(ctx context.Context, c tool.Call) (*tool.Result, error) {
		var a scPathArgs
		_ = json.Unmarshal(c.Args, &a)
		side := 1
		if c.ID == "a" {
			side = 0
		}
		fs.mu.Lock()
		n := fs.inside[a.Path]
		if n == nil {
			n = &[2]int{}
			fs.inside[a.Path] = n
		}
		if n[1-side] > 0 {
			fs.overlaps.Add(1)
		}
		n[side]++
		fs.mu.Unlock()
		runtime.Gosched() // let the other runs in while this one is inside
		fs.mu.Lock()
		n[side]--
		fs.mu.Unlock()
		return &tool.Result{Content: []tool.Content{tool.TextContent("written")}}, nil
	}, scPathResource(tool.Write))
}

// A hedge runs three runs of call a at once: the arguments as submitted
// (f) and two rewritten ones (g, h), so relocks, kept places and
// generations interleave, while other calls write f, g and h. Under -race:
// no data race, no call writing a file beside a run of a that holds it,
// and no lock left.
func TestAttackS21QHedgesRewritingAtOnce(t *testing.T) {
	// In a synctest bubble, synctest.Wait returns once every run has returned
	// and every other goroutine waits: no lock may be left then.
	synctest.Test(t, func(t *testing.T) {
		fs := &s21qFiles{inside: map[string]*[2]int{}}
		hedge := extension.Func("hedge", extension.PriorityDefault, func(next extension.Handler) extension.Handler {
			return func(ctx context.Context, req *extension.Request) *tool.Result {
				if req.Call.ID != "a" {
					return next(ctx, req)
				}
				start := make(chan struct{})
				results := make(chan *tool.Result, 3)
				for _, path := range []string{"", "g", "h"} {
					r := *req
					if path != "" {
						r.Call.Args = json.RawMessage(`{"path":"` + path + `","line":"a"}`)
					}
					go func() {
						<-start
						results <- next(ctx, &r)
					}()
				}
				close(start)
				var first *tool.Result
				for range 3 {
					if res := <-results; first == nil || res.Error == nil {
						first = res
					}
				}
				return first
			}
		})
		ex := executor.MustNew(scRegistry(t, fs.tool()), executor.WithExtensions(hedge))
		for range 50 {
			var wg sync.WaitGroup
			for _, c := range []struct{ id, path string }{{"a", "f"}, {"b", "f"}, {"c", "g"}, {"d", "h"}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, _ := ex.Execute(context.Background(), scCall(c.id, "w", scPathArgs{Path: c.path, Line: c.id}))
					assert.Nil(t, res.Error, "%s: %v", c.id, res.Error)
				}()
			}
			wg.Wait()
			synctest.Wait()
			require.Zero(t, executor.LockedKeys(ex), "a lock was left")
		}
		assert.Zero(t, fs.overlaps.Load(), "a call wrote a file beside a run of a that held it")
	})
}
