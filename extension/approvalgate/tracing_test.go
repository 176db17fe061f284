package approvalgate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
)

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
			var r ran
			ext := approvalgate.New(tc.approver)
			ex := newExec(t, &r, ext, tracing.New(tracing.WithTracerProvider(tp)))
			_, _ = ex.Execute(context.Background(), shellCall("rm -rf build"))

			byName := map[string]sdktrace.ReadOnlySpan{}
			for _, s := range rec.Ended() {
				byName[s.Name()] = s
			}
			require.Contains(t, byName, "execute_tool shell")
			require.Contains(t, byName, approvalgate.SpanName, "the approver was asked under its own span")
			call, span := byName["execute_tool shell"], byName[approvalgate.SpanName]
			assert.Equal(t, call.SpanContext().TraceID(), span.SpanContext().TraceID())
			assert.Equal(t, call.SpanContext().SpanID(), span.Parent().SpanID(), "the approval span is a child of the call span")
			assert.Equal(t, tc.wantStatus, span.Status().Code)
			got := map[string]string{}
			for _, kv := range span.Attributes() {
				got[string(kv.Key)] = kv.Value.AsString()
			}
			assert.Equal(t, tc.decision, got[string(approvalgate.KeyDecision)])
		})
	}
}

func TestNoApprovalSpanWhenNobodyIsAsked(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	var r ran
	ex := newExec(t, &r, approvalgate.New(fixed(approval.Approved("alice"))), tracing.New(tracing.WithTracerProvider(tp)))
	res, err := ex.Execute(context.Background(), shellCall("ls -la"))
	require.NoError(t, err)
	require.True(t, res.OK())
	require.Len(t, rec.Ended(), 1, "a safe call is allowed by the policy without asking: only the call span")
	assert.Equal(t, "execute_tool shell", rec.Ended()[0].Name())
}
