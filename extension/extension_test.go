package extension_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

func record(name string, prio int, log *[]string) extension.Extension {
	return extension.Func(name, prio, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			*log = append(*log, "in:"+name)
			res := next(ctx, req)
			*log = append(*log, "out:"+name)
			return res
		}
	})
}

func final(log *[]string) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		*log = append(*log, "backend")
		return &tool.Result{Status: tool.StatusSucceeded}
	}
}

func TestChainOrdersByPriority(t *testing.T) {
	var log []string
	h := extension.Chain(final(&log),
		record("retry", extension.PriorityRetry, &log),
		record("logging", extension.PriorityLogging, &log),
		record("auth", extension.PriorityAuth, &log),
		record("auth2", extension.PriorityAuth, &log), // equal priority keeps given order
	)
	res := h(context.Background(), &extension.Request{})
	require.True(t, res.OK())
	assert.Equal(t, []string{"in:logging", "in:auth", "in:auth2", "in:retry", "backend", "out:retry", "out:auth2", "out:auth", "out:logging"}, log)
}

func TestWithPriorityReorders(t *testing.T) {
	var log []string
	h := extension.Chain(final(&log),
		record("a", 100, &log),
		extension.WithPriority(record("b", 900, &log), 50),
	)
	h(context.Background(), &extension.Request{})
	assert.Equal(t, []string{"in:b", "in:a", "backend", "out:a", "out:b"}, log)
	assert.Equal(t, 50, extension.WithPriority(record("b", 900, &log), 50).Priority())
	assert.Equal(t, "b", extension.WithPriority(record("b", 900, &log), 50).Name())
}

// checked is an extension with a method beyond Extension's.
type checked struct{ extension.Hooks }

func (checked) Check() error { return nil }

func TestAsLooksThroughWithPriority(t *testing.T) {
	c := checked{extension.Hooks{ExtName: "c", Prio: 300}}
	twice := extension.WithPriority(extension.WithPriority(c, 100), 900)
	_, ok := twice.(extension.Checker)
	assert.False(t, ok, "the wrapper itself has only Extension's methods")
	got, ok := extension.As[extension.Checker](twice)
	require.True(t, ok)
	assert.Equal(t, c, got)
	mine, ok := extension.As[checked](twice)
	require.True(t, ok)
	assert.Equal(t, c, mine)
	assert.Equal(t, 900, twice.Priority())
	assert.Equal(t, "c", twice.Name())

	_, ok = extension.As[extension.Checker](record("r", 1, new([]string)))
	assert.False(t, ok)
	_, ok = extension.As[extension.Checker](nil)
	assert.False(t, ok)
	assert.Nil(t, extension.WithPriority(nil, 5))
}

// Each layer, and final, runs acting for the principal its request names;
// a request that names none takes the context's.
func TestChainActsForTheRequestsPrincipal(t *testing.T) {
	var seen []string
	look := func(name string) extension.Extension {
		return extension.Func(name, 100, func(next extension.Handler) extension.Handler {
			return func(ctx context.Context, req *extension.Request) *tool.Result {
				p, _ := tool.PrincipalFrom(ctx)
				seen = append(seen, name+":"+p.ID)
				if name == "switch" {
					req.Call.Principal = tool.Principal{ID: "carol"}
				}
				return next(ctx, req)
			}
		})
	}
	h := extension.Chain(func(ctx context.Context, req *extension.Request) *tool.Result {
		p, _ := tool.PrincipalFrom(ctx)
		seen = append(seen, "backend:"+p.ID)
		return &tool.Result{}
	}, look("first"), extension.WithPriority(look("switch"), 200), extension.WithPriority(look("last"), 300))
	ops := tool.WithPrincipal(context.Background(), tool.Principal{ID: "ops"})
	h(ops, &extension.Request{Call: tool.Call{Principal: tool.Principal{ID: "bob"}}})
	assert.Equal(t, []string{"first:bob", "switch:bob", "last:carol", "backend:carol"}, seen)
	seen = nil
	req := &extension.Request{}
	h(ops, req)
	assert.Equal(t, []string{"first:ops", "switch:ops", "last:carol", "backend:carol"}, seen)
}

func TestHooksShortCircuitAndAfter(t *testing.T) {
	var log []string
	var after []tool.Status
	deny := extension.Hooks{
		ExtName: "deny", Prio: 10,
		Before: func(ctx context.Context, req *extension.Request) *tool.Result {
			if req.Call.Name == "forbidden" {
				return tool.Fail(&req.Call, tool.CodePolicyDenied, "no")
			}
			return nil
		},
		After: func(ctx context.Context, req *extension.Request, res *tool.Result) { after = append(after, res.Status) },
	}
	h := extension.Chain(final(&log), deny)
	res := h(context.Background(), &extension.Request{Call: tool.Call{Name: "forbidden"}})
	assert.Equal(t, tool.StatusDenied, res.Status)
	assert.Empty(t, log, "backend must not run after a short-circuit")
	res = h(context.Background(), &extension.Request{Call: tool.Call{Name: "ok"}})
	assert.True(t, res.OK())
	assert.Equal(t, []string{"backend"}, log)
	assert.Equal(t, []tool.Status{tool.StatusDenied, tool.StatusSucceeded}, after)
	assert.Equal(t, "deny", deny.Name())
	assert.Equal(t, "hooks", extension.Hooks{}.Name())
}

func TestPanickingExtensionBecomesResult(t *testing.T) {
	var log []string
	var seen *tool.Result
	outer := extension.Hooks{ExtName: "outer", Prio: 1, After: func(_ context.Context, _ *extension.Request, r *tool.Result) { seen = r }}
	boom := extension.Func("boom", 5, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result { panic("kaboom") }
	})
	h := extension.Chain(final(&log), outer, boom)
	res := h(context.Background(), &extension.Request{Call: tool.Call{ID: "c1", Name: "t"}})
	require.NotNil(t, res)
	assert.Equal(t, tool.CodePanic, res.Error.Code)
	assert.Contains(t, res.Error.Message, `"boom" panicked: kaboom`)
	assert.Contains(t, res.Metadata["stack"], "extension_test.go")
	assert.Same(t, res, seen, "the outer extension still sees the result: the chain is not left half-run")
	assert.Empty(t, log)
}

func TestNilResultBecomesInternalError(t *testing.T) {
	bad := extension.Func("nil", 5, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result { return nil }
	})
	res := extension.Chain(func(context.Context, *extension.Request) *tool.Result { return nil }, bad)(context.Background(), &extension.Request{})
	require.NotNil(t, res)
	assert.Equal(t, tool.CodeInternal, res.Error.Code)
	assert.Contains(t, res.Error.Message, `"nil" returned no result`)
}

func TestRequestValues(t *testing.T) {
	r := &extension.Request{}
	_, ok := r.Get("k")
	assert.False(t, ok)
	r.Set("k", 1)
	v, ok := r.Get("k")
	assert.True(t, ok)
	assert.Equal(t, 1, v)
}

func TestSortDropsNil(t *testing.T) {
	var log []string
	assert.Len(t, extension.Sort([]extension.Extension{nil, record("a", 1, &log)}), 1)
}
