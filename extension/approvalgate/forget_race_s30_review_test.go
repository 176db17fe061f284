package approvalgate_test

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Forget while a batch's calls are decided, remembered and looked up (run
// with -race): every call is asked about or refused, none runs on a
// decision of a forgotten session it was not asked about.
func TestS30ReviewForgetRacesDecisions(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("deploy", "Deploy", func(context.Context, struct{ N int }) (string, error) {
		return "done", nil
	}, tool.WithRisk(tool.RiskHigh)))
	var gate *approvalgate.Extension
	gate = approvalgate.New(approval.ApproverFunc(func(_ context.Context, r approval.Request) (approval.Decision, error) {
		gate.Forget("acme", r.Call.Session)
		if len(r.Call.Args)%2 == 0 {
			return approval.Denied("ops", "no").WithScope(approval.ScopeSessionTool), nil
		}
		return approval.Approved("ops").WithScope(approval.ScopeSessionTool), nil
	}), approvalgate.WithSessionMemory(4))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)
	var calls []tool.Call
	for i := range 16 {
		calls = append(calls, tool.Call{ID: "c" + strconv.Itoa(i), Name: "deploy", Args: json.RawMessage(`{"N":` + strconv.Itoa(i) + `}`),
			Principal: tool.Principal{ID: "alice", Tenant: "acme"}, Session: "s" + strconv.Itoa(i%3)})
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for _, res := range ex.ExecuteBatch(context.Background(), calls) {
				if res.Error != nil {
					assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 100 {
			gate.Forget("acme", "s"+strconv.Itoa(i%3))
		}
	})
	wg.Wait()
}
