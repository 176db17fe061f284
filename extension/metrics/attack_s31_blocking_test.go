package metrics_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// stuck is a Recorder whose Finish blocks, for the calls of one tool,
// until released: a recorder that writes to a network on the call's path.
type stuck struct {
	tool     string
	entered  chan struct{}
	release  chan struct{}
	finished chan string
}

func (s *stuck) Start(string) {}

func (s *stuck) Finish(o metrics.Observation) {
	if o.Tool == s.tool {
		close(s.entered)
		<-s.release
	}
	s.finished <- o.Tool
}

// A recorder that blocks holds the call it measures, as Recorder's godoc
// says (it runs on the call's path; nothing stops waiting for it), and
// only that call: the extension holds no lock while it calls recorders,
// so the calls of other tools, and refused calls, go on meanwhile, and
// once it returns the held call is answered with the tool's own result.
// A guard (a goroutine per measurement, a timeout) would cost every call
// to spare a recorder that breaks its contract.
func TestAttackS31BlockingRecorderHoldsOnlyItsCall(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(
		tool.Func("pay", "Pays an invoice", func(context.Context, struct{}) (string, error) { return "paid", nil }),
		tool.Func("status", "Service status", func(context.Context, struct{}) (string, error) { return "up", nil }),
	)
	rec := &stuck{tool: "pay", entered: make(chan struct{}), release: make(chan struct{}), finished: make(chan string, 8)}
	m := metrics.New(metrics.WithRecorder(rec))
	ex := executor.MustNew(reg, executor.WithExtensions(m))
	ctx := context.Background()

	type answer struct {
		res *tool.Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := ex.Execute(ctx, tool.Call{ID: "c1", Name: "pay", Args: json.RawMessage(`{}`)})
		done <- answer{res, err}
	}()
	<-rec.entered // the tool ran; its measurement is stuck

	select {
	case <-done:
		t.Fatal("Execute returned while the recorder's Finish was still running")
	default:
	}
	// Other calls are not held by it.
	res, err := ex.Execute(ctx, tool.Call{ID: "c2", Name: "status", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.Equal(t, "status", <-rec.finished)
	assert.True(t, res.OK())
	_, _ = ex.Execute(ctx, tool.Call{ID: "c3", Name: "invented", Args: json.RawMessage(`{}`)})
	assert.Equal(t, metrics.UnknownTool, <-rec.finished)
	// The in-memory recorder is told first: it has counted the held call.
	assert.Equal(t, uint64(1), m.Snapshot().Calls("pay", tool.StatusSucceeded))

	close(rec.release)
	a := <-done
	require.NoError(t, a.err)
	assert.Equal(t, "paid", a.res.Text())
	assert.Equal(t, "pay", <-rec.finished)
	assert.Zero(t, m.Snapshot().InFlight())
}
