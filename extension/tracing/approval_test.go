package tracing_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// approvalExec runs a high-risk "shell" tool (the approval extension asks
// about every call of it) and a low-risk "ls" one, under exts.
func approvalExec(t *testing.T, exts ...extension.Extension) *executor.Executor {
	t.Helper()
	reg := registry.New()
	run := func(context.Context, struct {
		Command string `json:"command"`
	}) (string, error) {
		return "ran", nil
	}
	reg.MustRegister(
		tool.Func("shell", "Run a command", run, tool.WithRisk(tool.RiskHigh)),
		tool.Func("ls", "List files", run, tool.WithRisk(tool.RiskLow)),
	)
	return executor.MustNew(reg, executor.WithExtensions(exts...))
}

func fixed(d approval.Decision) approval.Approver {
	return approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) { return d, nil })
}

func shellCall(name string) tool.Call {
	return tool.Call{ID: "c1", Name: name, Args: json.RawMessage(`{"command":"x"}`)}
}

func TestApprovalSpanIsAChildOfTheCallSpan(t *testing.T) {
	for _, tc := range []struct {
		name       string
		approver   approval.Approver
		decision   string
		wantStatus codes.Code
	}{
		{"approved", fixed(approval.Approved("alice")), "approve", codes.Unset},
		{"denied", fixed(approval.Denied("alice", "no")), "deny", codes.Unset},
		{"approver fails", approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
			return approval.Decision{}, errors.New("queue down")
		}), "deny", codes.Error},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			ext := approvalgate.New(tc.approver)
			ex := approvalExec(t, ext, ext.Guard(), tracing.New(tracing.WithTracerProvider(tp)))
			_, _ = ex.Execute(context.Background(), shellCall("shell"))

			byName := map[string]sdktrace.ReadOnlySpan{}
			for _, s := range rec.Ended() {
				byName[s.Name()] = s
			}
			require.Contains(t, byName, "execute_tool shell")
			require.Contains(t, byName, tracing.ApprovalSpanName, "the approver was asked under its own span")
			call, span := byName["execute_tool shell"], byName[tracing.ApprovalSpanName]
			assert.Equal(t, call.SpanContext().TraceID(), span.SpanContext().TraceID())
			assert.Equal(t, call.SpanContext().SpanID(), span.Parent().SpanID(), "the approval span is a child of the call span")
			assert.Equal(t, tc.wantStatus, span.Status().Code)
			got := map[string]string{}
			for _, kv := range span.Attributes() {
				got[string(kv.Key)] = kv.Value.AsString()
			}
			assert.Equal(t, tc.decision, got[string(tracing.KeyApprovalDecision)])
			if tc.name != "approver fails" {
				assert.Equal(t, "alice", got[string(tracing.KeyApprovalDecidedBy)])
			}
		})
	}
}

func TestNoApprovalSpanWhenNobodyIsAsked(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ext := approvalgate.New(fixed(approval.Approved("alice")))
	ex := approvalExec(t, ext, ext.Guard(), tracing.New(tracing.WithTracerProvider(tp)))
	res, err := ex.Execute(context.Background(), shellCall("ls"))
	require.NoError(t, err)
	require.True(t, res.OK())
	require.Len(t, rec.Ended(), 1, "a safe call is allowed by the policy without asking: only the call span")
	assert.Equal(t, "execute_tool ls", rec.Ended()[0].Name())
}
