package approvalgate_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// renamed runs a tool under another name and says so (Unwrap), as a tool
// file's go tool over a Go implementation does.
type renamed struct {
	tool.Tool
	name string
}

func (r renamed) Spec() tool.Spec {
	s := r.Tool.Spec()
	s.Name = r.name
	return s
}

func (r renamed) Unwrap() tool.Tool { return r.Tool }

// The always-ask list names the tool that runs, not only the name it is
// called by: "approve for this session" of a call to a tool that runs pay
// under another name covers that call only. (Pinned: it held on the code
// of dfab588, which matches the list's entries through Unwrap.)
func TestSessionMemoryCoversNoRenamedAlwaysAskTool(t *testing.T) {
	for _, scope := range []approval.Scope{approval.ScopeSessionTool, approval.ScopeSessionArgs} {
		t.Run(scope.String(), func(t *testing.T) {
			var asked, ran atomic.Int32
			pay := tool.Func("pay", "Pay an invoice", func(context.Context, struct{}) (string, error) {
				ran.Add(1)
				return "paid", nil
			}, tool.WithRisk(tool.RiskLow))
			reg := registry.New()
			reg.MustRegister(pay, renamed{pay, "settle_invoice"})
			gate := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
				asked.Add(1)
				return approval.Approved("ops").WithScope(scope), nil
			}), approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAuto, approval.AlwaysAsk("pay"))))
			ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
			require.NoError(t, err)
			call := tool.Call{ID: "c1", Name: "settle_invoice", Args: json.RawMessage(`{}`), Principal: tool.Principal{ID: "alice", Tenant: "acme"}, Session: "s1"}
			for i, id := range []string{"c1", "c2", "c3"} {
				call.ID = id
				res, err := ex.Execute(context.Background(), call)
				require.NoError(t, err)
				require.Nil(t, res.Error)
				assert.EqualValues(t, i+1, asked.Load(), "call %s of the renamed always-ask tool ran on the session's remembered approval, unasked", id)
			}
			assert.EqualValues(t, 3, ran.Load())
		})
	}
}
