package retry_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/extension/retry"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The rate limit (priority 700) takes a call's tokens once; the retry
// extension (1000) runs the backend again inside it. A tool limited to 2
// calls an hour (its upstream's quota) whose upstream answered 503 had its
// backend run 6 times in that hour: every retry was a free run. Each run
// after the first now takes the call's tokens again, and a retry the
// limit refuses is not run.
func TestAttackS27RetriesRunPastTheRateLimit(t *testing.T) {
	var runs atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.Func("quote", "Ask the paid quote service", func(context.Context, struct{}) (string, error) {
		runs.Add(1)
		return "", tool.NewError(tool.CodeUnavailable, "upstream answered 503")
	}, tool.ReadOnly(), tool.WithRateLimit(2)))
	ex, err := executor.New(reg, executor.WithExtensions(ratelimit.New(), retry.New(retry.Backoff(time.Microsecond, time.Microsecond))))
	require.NoError(t, err)
	call := tool.Call{ID: "c1", Name: "quote", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "alice"}}

	res, _ := ex.Execute(context.Background(), call)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeUnavailable, res.Error.Code, "the last run's failure is the answer")
	assert.Equal(t, 2, res.Attempts)
	assert.Contains(t, res.Metadata[retry.MetaKey], "rate limit", "why retrying stopped")

	call.ID = "c2"
	res, _ = ex.Execute(context.Background(), call)
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeRateLimited, res.Error.Code)
	assert.Equal(t, int64(2), runs.Load(), "backend runs under a limit of 2 an hour")
}
