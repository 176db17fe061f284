package executor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// atGate is a tool backend that says which call entered (entered) and
// waits for release: a call held there holds its locks.
type atGate struct {
	entered chan string
	release chan struct{}
}

func newGate() *atGate {
	return &atGate{entered: make(chan string, 8), release: make(chan struct{})}
}

func (g *atGate) wait(ctx context.Context, id string) error {
	g.entered <- id
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// overlaps holds first inside its backend, then runs second and reports
// whether second's backend ran while first held its locks (under
// WithConflictPolicy(Refuse) second is otherwise refused at once), and
// second's result.
func overlaps(t *testing.T, ex *executor.Executor, g *atGate, first, second tool.Call) (bool, *tool.Result) {
	t.Helper()
	r1, r2 := make(chan *tool.Result, 1), make(chan *tool.Result, 1)
	go func() {
		res, _ := ex.Execute(context.Background(), first)
		r1 <- res
	}()
	select {
	case <-g.entered:
	case res := <-r1:
		t.Fatalf("the first call did not reach its backend: %v", res.Err())
	}
	go func() {
		res, _ := ex.Execute(context.Background(), second)
		r2 <- res
	}()
	var res *tool.Result
	overlapped := false
	select {
	case <-g.entered:
		overlapped = true
		g.release <- struct{}{}
		g.release <- struct{}{}
		res = <-r2
	case res = <-r2:
		g.release <- struct{}{}
	}
	require.True(t, (<-r1).OK())
	return overlapped, res
}

// TestAttackDefaultFilledArgumentsRunUnlocked: a tool declares its
// resources from the arguments (tool.WithResources); the executor fills
// the schema's defaults (and drops nulls) before the backend runs. The
// locks must be those of the arguments the backend runs with: a call that
// leaves "path" to its default writes the default's file, and must not run
// while another call writes it.
func TestAttackDefaultFilledArgumentsRunUnlocked(t *testing.T) {
	type in struct {
		Path string `json:"path,omitempty" jsonschema:"default=shared"`
	}
	g := newGate()
	w := tool.Func("w", "Write a file", func(ctx context.Context, a in) (string, error) {
		return a.Path, g.wait(ctx, a.Path)
	}, tool.WithResources(func(args json.RawMessage) []tool.Resource {
		var a in
		_ = json.Unmarshal(args, &a)
		return []tool.Resource{{Key: "file:" + a.Path, Access: tool.Write}}
	}))
	ex := executor.MustNew(scRegistry(t, w), executor.WithConflictPolicy(executor.Refuse))
	for _, args := range []string{`{}`, `{"path":null}`} {
		t.Run(args, func(t *testing.T) {
			overlapped, res := overlaps(t, ex, g,
				tool.Call{ID: "explicit", Name: "w", Args: json.RawMessage(`{"path":"shared"}`)},
				tool.Call{ID: "default", Name: "w", Args: json.RawMessage(args)})
			assert.False(t, overlapped, "the call left to its default wrote file:shared while another call held it")
			assert.ErrorIs(t, res.Err(), tool.ErrConflict)
			assert.Zero(t, executor.LockedKeys(ex))
		})
	}
}
