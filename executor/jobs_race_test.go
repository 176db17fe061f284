package executor_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// TestCancelWhileSubmitting: a job listed by Jobs while Submit is still
// setting it up can be cancelled at once: Cancel never finds a job without
// its cancel function (a nil call, or a data race under -race).
func TestCancelWhileSubmitting(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("noop", "Does nothing", func(ctx context.Context, in struct{}) (string, error) { return "", nil }))
	ex := executor.MustNew(reg)
	ctx := context.Background()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, st := range ex.Jobs(executor.JobFilter{}) {
				_ = ex.Cancel(st.ID)
			}
		}
	}()
	ids := make([]executor.JobID, 2000)
	for i := range ids {
		var err error
		ids[i], err = ex.Submit(ctx, tool.Call{Name: "noop", Args: []byte(`{}`)})
		require.NoError(t, err)
	}
	close(stop)
	wg.Wait()
	for _, id := range ids {
		_, _ = ex.Wait(ctx, id) // cancelled or done; no job left running
	}
}
