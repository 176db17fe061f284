package metrics_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// panicky is a Recorder of the program's that panics in Start or Finish
// (a label value its client refuses, a bug).
type panicky struct {
	inStart, inFinish bool
	finished          atomic.Int64
}

func (p *panicky) Start(string) {
	if p.inStart {
		panic("recorder: bad label")
	}
}

func (p *panicky) Finish(metrics.Observation) {
	if p.inFinish {
		panic("recorder: bad label")
	}
	p.finished.Add(1)
}

// A recorder's panic is the program's measurement failing, not the call:
// the extension let it through, the chain made it the call's answer
// (code panic), and a payment that went through was reported to the model
// as failed, so it paid again; a panic in Start also left the in-memory
// in-flight count up for good. Measurement must not change what a call
// does or answers.
func TestAttackS30RecorderPanicIsNotTheCalls(t *testing.T) {
	for _, tc := range []struct {
		name string
		rec  *panicky
	}{
		{"finish", &panicky{inFinish: true}},
		{"start", &panicky{inStart: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var paid atomic.Int64
			reg := registry.New()
			reg.MustRegister(tool.Func("pay", "Pays an invoice", func(context.Context, struct{}) (string, error) {
				paid.Add(1)
				return "paid", nil
			}))
			after := &panicky{} // a recorder after the one that panics
			m := metrics.New(metrics.WithRecorder(tc.rec, after))
			ex := executor.MustNew(reg, executor.WithExtensions(m))
			res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "pay", Args: json.RawMessage(`{}`)})
			require.NotNil(t, res)
			assert.NoError(t, err, "the payment went through; the call was answered as failed")
			assert.True(t, res.OK())
			assert.Equal(t, int64(1), paid.Load(), "the tool ran once")
			snap := m.Snapshot()
			assert.Equal(t, uint64(1), snap.Calls("pay", tool.StatusSucceeded), "the in-memory recorder counted the call")
			assert.Zero(t, snap.InFlight(), "no call is in flight")
			assert.Equal(t, int64(1), after.finished.Load(), "the recorders after the one that panicked are fed")
		})
	}
}
