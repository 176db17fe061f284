package cache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The rate limit gives back the tokens of a call its caller cancelled
// before the backend ran (status cancelled, no attempt). The cache, when
// the caller's context ended, answered at once with a bare cancellation,
// also when that caller was the one running the backend: the backend had
// run, yet the result said it had not, and the limit gave the token back.
// A client that cancels each call once its backend has started (an MCP
// client's notifications/cancelled) ran a cacheable tool, each time with
// new arguments, as often as it liked under a limit of one call an hour.
func TestAttackS27CancelledCallGetsItsTokenBackAfterTheBackendRan(t *testing.T) {
	started := make(chan struct{}, 1)
	var runs atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.Func("quote", "Ask the paid quote service", func(ctx context.Context, in struct {
		N    int  `json:"n"`
		Hang bool `json:"hang"`
	}) (string, error) {
		runs.Add(1)
		if in.Hang {
			started <- struct{}{}
			<-ctx.Done() // the request to the paid service is out; the caller gives up
			return "", ctx.Err()
		}
		return fmt.Sprint("quote ", in.N), nil
	}, tool.ReadOnly()))
	ex, err := executor.New(reg, executor.WithExtensions(ratelimit.New(ratelimit.PerPrincipal("1/hour")), cache.New()))
	require.NoError(t, err)
	alice := tool.Principal{ID: "alice"}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *tool.Result, 1)
	go func() {
		res, _ := ex.Execute(ctx, tool.Call{ID: "c1", Name: "quote", Args: json.RawMessage(`{"n":1,"hang":true}`), Principal: alice})
		done <- res
	}()
	<-started
	cancel()
	res := <-done
	require.NotNil(t, res.Error)
	assert.Equal(t, int64(1), runs.Load())

	res, _ = ex.Execute(context.Background(), tool.Call{ID: "c2", Name: "quote", Args: json.RawMessage(`{"n":2,"hang":false}`), Principal: alice})
	if assert.NotNil(t, res.Error, "the second call ran on the token given back for a call whose backend had run: %s", res.Text()) {
		assert.Equal(t, tool.CodeRateLimited, res.Error.Code)
	}
	assert.Equal(t, int64(1), runs.Load(), "backend runs under a limit of 1/hour")
}
