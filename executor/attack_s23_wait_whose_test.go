package executor_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call that gives up waiting for a lock or a slot said "gave up at the
// deadline: ... give the call a longer deadline" whoever's deadline it
// was: the executor's WithMaxWait bound, which no deadline the caller
// gives lifts, read as the caller's, and the caller's own was not named.
// Whose deadline ended the wait is said.
func TestAttackS23AWaitSaysWhoseDeadlineEndedIt(t *testing.T) {
	for _, lock := range []bool{true, false} {
		probe, release := &scProbe{}, make(chan struct{})
		ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release, scPathResource(tool.Write))),
			executor.WithMaxConcurrency(1), executor.WithMaxWait(50*time.Millisecond))
		path := ""
		if lock {
			path = "f"
		}
		held := scHold(t, ex, probe, "holder", path)

		res, err := ex.Execute(context.Background(), scCall("bounded", "gate", scPathArgs{Path: path}))
		require.Error(t, err)
		assert.Contains(t, res.Error.Message, "gave up at the deadline", "lock %v", lock)
		assert.Contains(t, res.Error.Message, "WithMaxWait", "lock %v: %s", lock, res.Error.Message)
		assert.NotContains(t, res.Error.Message, "give the call a longer deadline", "lock %v", lock)

		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		res, err = ex.Execute(ctx, scCall("caller", "gate", scPathArgs{Path: path}))
		cancel()
		require.Error(t, err)
		assert.Contains(t, res.Error.Message, "gave up at the caller's deadline", "lock %v: %s", lock, res.Error.Message)

		close(release)
		require.True(t, (<-held).OK())
	}
}
