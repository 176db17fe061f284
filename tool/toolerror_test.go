package tool_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

type lookupIn struct {
	ID string `json:"id"`
}

// A plain error a Go func returns is the tool's own failure, not the SDK's:
// it has the tool_error code, the model reads its message, and the Go error
// stays reachable for the program.
func TestPlainFuncErrorIsToolError(t *testing.T) {
	errNoRow := errors.New("no order with id 42")
	ft := tool.Func("lookup_order", "Look up an order", func(context.Context, lookupIn) (string, error) {
		return "", fmt.Errorf("lookup: %w", errNoRow)
	})
	_, err := ft.Run(context.Background(), tool.Call{Name: "lookup_order", Args: []byte(`{"id":"42"}`)})
	te := tool.AsError(err)
	require.NotNil(t, te)
	assert.Equal(t, tool.CodeToolError, te.Code)
	assert.Equal(t, "lookup: no order with id 42", te.Message)
	assert.False(t, te.Retryable)
	assert.ErrorIs(t, te, errNoRow, "the Go error is kept as the cause")
	assert.Equal(t, tool.StatusFailed, te.Code.Status())
}

// A driver's own deadline (its own timeout, not the call's) keeps its cause:
// it is not reported as "the call ran past its deadline".
func TestFuncOwnDeadlineIsNotTheCallsDeadline(t *testing.T) {
	ft := tool.Func("query", "Query the database", func(ctx context.Context, _ lookupIn) (string, error) {
		dctx, cancel := context.WithTimeout(ctx, time.Nanosecond)
		defer cancel()
		<-dctx.Done()
		return "", fmt.Errorf("pq: query cancelled: %w", dctx.Err())
	})
	_, err := ft.Run(context.Background(), tool.Call{Name: "query", Args: []byte(`{}`)})
	te := tool.AsError(err)
	require.NotNil(t, te)
	assert.Equal(t, tool.CodeToolError, te.Code)
	assert.Contains(t, te.Message, "pq: query cancelled: context deadline exceeded")
	assert.NotContains(t, te.Message, "the call ran past its deadline")
	assert.True(t, te.Retryable, "a timeout inside the tool may pass on a retry")

	// The call's own deadline is still the call's.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	own := tool.Func("wait", "Wait", func(ctx context.Context, _ lookupIn) (string, error) { return "", ctx.Err() })
	_, err = own.Run(ctx, tool.Call{Name: "wait", Args: []byte(`{}`)})
	assert.Equal(t, tool.CodeCancelled, tool.AsError(err).Code)
}

// Errors with a code pass through unchanged.
func TestCodedFuncErrorKeepsItsCode(t *testing.T) {
	ft := tool.Func("pay", "Pay", func(context.Context, lookupIn) (string, error) {
		return "", tool.NewError(tool.CodeUnavailable, "the bank is down")
	})
	_, err := ft.Run(context.Background(), tool.Call{Name: "pay", Args: []byte(`{}`)})
	assert.Equal(t, tool.CodeUnavailable, tool.AsError(err).Code)
}
