package tracing_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A failed call's span status is its error's text, and an error's text
// quotes what the tool was given or met: a connection string with its
// password, an Authorization header, the password it was sent under a key
// that says so. The logging extension and the audit trail pass that text
// through the one redaction rule; the span, exported to a tracing backend
// that more people read than the logs, must not be where it stays whole.
func TestAttackS17SpanStatusIsRedacted(t *testing.T) {
	cases := []struct {
		name, args, msg, secret string
	}{
		{"url password", `{}`, "dial postgres://app:Sup3rS3cretPw@db:5432/app: connection refused", "Sup3rS3cretPw"},
		{"bearer header", `{}`, "upstream said 401 to Authorization: Bearer tok_8f2a9c1d7e6b5a4c3d2e1f00", "tok_8f2a9c1d7e6b5a4c3d2e1f00"},
		{"basic header", `{}`, "proxy refused Proxy-Authorization: Basic dXNlcjpodW50ZXIyc2VjcmV0", "dXNlcjpodW50ZXIyc2VjcmV0"},
		{"private key", `{}`, "bad key -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"},
		// Named secret by its key in the arguments, declared nowhere: the
		// echo is what the logs and the trail mask.
		{"echoed argument", `{"user":"bob","password":"hunter2-horse-staple"}`, "login failed for bob with hunter2-horse-staple", "hunter2-horse-staple"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg := registry.New()
			reg.MustRegister(tool.New("login", "Logs in", func(context.Context, tool.Call) (*tool.Result, error) {
				return nil, tool.NewError(tool.CodeUnavailable, tc.msg)
			}, tool.WithInputSchema(json.RawMessage(`{"type":"object"}`))))
			tp, rec := newProvider(t)
			tr := tracing.New(tracing.WithTracerProvider(tp))
			ex := executor.MustNew(reg, executor.WithExtensions(tr, tr.Backend()))
			_, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "login", Args: json.RawMessage(tc.args)})
			require.Error(t, err)
			spans := rec.Ended()
			require.Len(t, spans, 2, "the call span and the backend span")
			for _, s := range spans {
				d := s.Status().Description
				assert.NotContains(t, d, tc.secret, "span %q: the status holds the secret", s.Name())
				assert.Contains(t, d, "[REDACTED]", "span %q: the status says what it masked", s.Name())
				for _, kv := range s.Attributes() {
					assert.NotContains(t, kv.Value.String(), tc.secret, "span %q: attribute %s holds the secret", s.Name(), kv.Key)
				}
			}
		})
	}
}

// Redaction reads no more of a long message than the span keeps (and a
// secret's length past it): a 1 MiB error costs what 8 KiB does.
func TestAttackS17SpanStatusRedactsAcrossTheCut(t *testing.T) {
	head := strings.Repeat("x", tracing.MaxValueBytes-40)
	msg := head + " password=Sup3rS3cretPw-that-runs-past-the-cut " + strings.Repeat("y", 1<<20)
	reg := registry.New()
	reg.MustRegister(tool.New("work", "Does work", func(context.Context, tool.Call) (*tool.Result, error) {
		return nil, tool.NewError(tool.CodeUnavailable, msg)
	}))
	tp, rec := newProvider(t)
	tr := tracing.New(tracing.WithTracerProvider(tp))
	ex := executor.MustNew(reg, executor.WithExtensions(tr))
	_, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "work", Args: json.RawMessage(`{}`)})
	require.Error(t, err)
	spans := rec.Ended()
	require.Len(t, spans, 1)
	d := spans[0].Status().Description
	assert.LessOrEqual(t, len(d), tracing.MaxValueBytes)
	assert.NotContains(t, d, "Sup3r", "no prefix of the secret the cut falls in")
}

// An approver's error (a webhook it could not reach, with the token in its
// URL) goes on the approval span through the same rule.
func TestAttackS17ApprovalSpanErrorIsRedacted(t *testing.T) {
	failing := extension.Func(extension.NameApproval, extension.PriorityApproval, func(extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalRequested, CallID: req.Call.ID, Tool: req.Call.Name})
			tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalDecided, CallID: req.Call.ID, Tool: req.Call.Name, Decision: "deny",
				Error: "approver: POST https://hooks.example.com/approve?token=Sup3rS3cretTok: connection refused"})
			return tool.Fail(&req.Call, tool.CodeApprovalDenied, "not approved")
		}
	})
	reg := registry.New()
	reg.MustRegister(tool.New("work", "Does work", func(context.Context, tool.Call) (*tool.Result, error) {
		return &tool.Result{Content: []tool.Content{tool.TextContent("done")}}, nil
	}))
	tp, rec := newProvider(t)
	ex := executor.MustNew(reg, executor.WithExtensions(tracing.New(tracing.WithTracerProvider(tp)), failing))
	_, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "work", Args: json.RawMessage(`{}`)})
	require.Error(t, err)
	var seen bool
	for _, s := range rec.Ended() {
		if s.Name() == tracing.ApprovalSpanName {
			seen = true
			assert.Equal(t, codes.Error, s.Status().Code)
			assert.NotContains(t, s.Status().Description, "Sup3rS3cretTok")
			assert.Contains(t, s.Status().Description, "connection refused")
		}
	}
	assert.True(t, seen, "the approval span")
}
