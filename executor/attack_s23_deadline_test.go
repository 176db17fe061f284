package executor_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An inline backend that ignores its context and returns after the
// caller's deadline: its success was reported as such, to a caller whose
// deadline had passed, and so recorded; the same backend past its own
// deadline counts as timed out (TestInlineBackendEndsBeforeTheCall). The
// caller's deadline, first, is reported as the caller's.
func TestAttackS23InlineBackendPastTheCallersDeadline(t *testing.T) {
	// In a synctest bubble the caller's deadline passes only once the
	// backend waits: on a loaded machine a real 20 ms could pass before
	// the backend started, which is another case (the deadline before the
	// start).
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		stubborn := tool.Func("stubborn", "The stubborn test tool", func(context.Context, struct{}) (string, error) {
			<-release // ignores ctx
			return "late", nil
		}, tool.WithTimeout(time.Hour))
		ex := newExec(t, nil, stubborn)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		go func() {
			<-ctx.Done()
			close(release)
		}()
		res, err := ex.Execute(ctx, tool.Call{ID: "c", Name: "stubborn", Args: json.RawMessage(`{}`)})
		require.ErrorIs(t, err, tool.ErrTimeout)
		assert.Equal(t, tool.StatusTimedOut, res.Status)
		assert.Contains(t, res.Error.Message, "the caller's deadline passed")
		assert.NotContains(t, res.Error.Message, "1h0m0s deadline and returned")
		assert.Equal(t, true, res.Metadata["late"])
		assert.Equal(t, "late", res.Text(), "the late result is kept")
	})
}

// The caller's deadline message said when the deadline passed with the
// time the call looked: under WithDetach, after the grace a call holding a
// lock gives its backend, a second later than the deadline it reported.
func TestAttackS23CallersDeadlineSaysWhenItPassed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		stubborn := tool.Func("stubborn", "The stubborn test tool", func(context.Context, scPathArgs) (string, error) {
			<-release // ignores ctx
			return "late", nil
		}, tool.WithTimeout(time.Hour), scPathResource(tool.Write))
		ex := newExec(t, []executor.Option{executor.WithDetach()}, stubborn)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		res, err := ex.Execute(ctx, scCall("c", "stubborn", scPathArgs{Path: "f"}))
		close(release)
		require.ErrorIs(t, err, tool.ErrTimeout)
		assert.Contains(t, res.Error.Message, "the caller's deadline passed 50ms into the run")
		assert.Equal(t, true, res.Metadata[tool.MetaStillRunning])
		synctest.Wait()
	})
}
