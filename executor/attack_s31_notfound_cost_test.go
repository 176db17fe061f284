package executor_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// countingAuth lets a principal call only the tools in allowed, and counts
// how often it is asked.
type countingAuth struct {
	asked   atomic.Int64
	allowed map[string]bool
}

func (a *countingAuth) Name() string                                  { return "auth" }
func (a *countingAuth) Priority() int                                 { return extension.PriorityAuth }
func (a *countingAuth) Wrap(next extension.Handler) extension.Handler { return a.wrap(next) }
func (a *countingAuth) wrap(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		if rule, err := a.Authorize(req.Call.Principal, req.Spec); err != nil {
			return extension.Refusal(&req.Call, rule, err)
		}
		return next(ctx, req)
	}
}
func (a *countingAuth) Authorize(_ tool.Principal, spec *tool.Spec) (string, error) {
	a.asked.Add(1)
	if a.allowed[spec.Name] {
		return "", nil
	}
	return "deny", tool.NewError(tool.CodeUnauthorized, "no")
}

// A call of a name no tool has is answered not_found with the names the
// principal may have meant (did you mean ..., available tools are ...),
// each asked of the authorizers. The answer asked them of every registered
// tool: with 2,000 tools and a principal that may call none, one guessed
// name cost 2,000 questions (a helper measured 43 ms with 200 glob rules),
// and a call of a hidden tool twice that, so that a model or an MCP client
// kept a core busy with 10-25 calls a second. One answer now asks of a
// bounded number of tools.
func TestAttackS31NotFoundAsksOfABoundedNumberOfTools(t *testing.T) {
	reg := registry.New()
	for i := range 2000 {
		reg.MustRegister(tool.Func(fmt.Sprintf("tool_%04d", i), "a tool", func(context.Context, struct{}) (string, error) { return "ok", nil }))
	}
	a := &countingAuth{allowed: map[string]bool{}}
	ex := executor.MustNew(reg, executor.WithExtensions(a))
	p := tool.Principal{ID: "mallory"}

	// A guessed name close to every tool's (each contains "tool_").
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "1", Name: "tool_", Principal: p})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeNotFound, res.Error.Code)
	assert.LessOrEqual(t, a.asked.Load(), int64(200), "authorizer questions for one unknown name")

	// A hidden tool's name: answered as a name no tool has.
	a.asked.Store(0)
	res, _ = ex.Execute(context.Background(), tool.Call{ID: "2", Name: "tool_0001", Principal: p})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeNotFound, res.Error.Code)
	assert.LessOrEqual(t, a.asked.Load(), int64(400), "authorizer questions for one hidden tool")
	assert.NotContains(t, res.Error.Message, "tool_0002", "no hidden tool is suggested")
}

// The answer still helps: a principal that may call a few tools of a large
// registry is told the one it misspelt.
func TestNotFoundStillSuggestsInALargeRegistry(t *testing.T) {
	reg := registry.New()
	for i := range 2000 {
		reg.MustRegister(tool.Func(fmt.Sprintf("tool_%04d", i), "a tool", func(context.Context, struct{}) (string, error) { return "ok", nil }))
	}
	reg.MustRegister(tool.Func("search_docs", "search", func(context.Context, struct{}) (string, error) { return "ok", nil }))
	a := &countingAuth{allowed: map[string]bool{"search_docs": true}}
	ex := executor.MustNew(reg, executor.WithExtensions(a))
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "1", Name: "serch_docs", Principal: tool.Principal{ID: "alice"}})
	require.NotNil(t, res.Error)
	assert.True(t, strings.Contains(res.Error.Message, `did you mean "search_docs"?`), res.Error.Message)
}
