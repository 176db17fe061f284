package executor_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call whose caller's deadline passed before its backend started (a
// call of a batch that never got to start, an extension that let the call
// through as the deadline passed) said "the call ran past its deadline":
// it never ran, and the deadline was the caller's. It says so.
func TestAttackS23CallersDeadlineBeforeTheStartIsTheCallers(t *testing.T) {
	var ran bool
	slowPolicy := extension.Func("slow-policy", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			<-ctx.Done() // decides only once the caller's deadline has passed
			return next(ctx, req)
		}
	})
	w := tool.New("w", "The w test tool", func(context.Context, tool.Call) (*tool.Result, error) {
		ran = true
		return &tool.Result{}, nil
	})
	for name, ex := range map[string]*executor.Executor{
		"expired": newExec(t, nil, w),
		"chain":   newExec(t, []executor.Option{executor.WithExtensions(slowPolicy)}, w),
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		if name == "expired" {
			<-ctx.Done()
		}
		res, err := ex.Execute(ctx, tool.Call{ID: "c", Name: "w", Args: json.RawMessage(`{}`)})
		cancel()
		require.ErrorIs(t, err, tool.ErrTimeout, name)
		assert.Contains(t, res.Error.Message, "the caller's deadline passed before", name)
		assert.NotContains(t, res.Error.Message, "ran past", name)
		assert.True(t, res.Error.Retryable, name)
		assert.ErrorIs(t, err, context.DeadlineExceeded, name)
	}
	assert.False(t, ran)
}
