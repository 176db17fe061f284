package tracing_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// assertValidUTF8 asserts that every string of s an exporter sends is
// UTF-8: OTLP carries them in protobuf string fields, and protobuf-go
// refuses to marshal one that is not ("string field contains invalid
// UTF-8"), so the exporter drops the whole batch the span is in, every
// other call's spans with it (open-telemetry/opentelemetry-go#3021).
func assertValidUTF8(t *testing.T, s sdktrace.ReadOnlySpan) {
	t.Helper()
	assert.True(t, utf8.ValidString(s.Name()), "span name %q", s.Name())
	assert.True(t, utf8.ValidString(s.Status().Description), "span %q: status %q is not UTF-8", s.Name(), s.Status().Description)
	for _, kv := range s.Attributes() {
		if kv.Value.Type() == attribute.STRING {
			assert.True(t, utf8.ValidString(kv.Value.AsString()), "span %q: attribute %s = %q is not UTF-8", s.Name(), kv.Key, kv.Value.AsString())
		}
	}
}

// A shell tool that exits non-zero says so with the last line of its
// stderr (tool/shell's exitMessage), byte for byte: a model that runs
// printf '\377' >&2; exit 1 puts a byte that is not UTF-8 in the error's
// message, which the span's status carried as it was. The call's id, its
// agent and its principal are whatever its callers sent.
func TestAttackS30SpanStringsAreUTF8(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.New("sh", "Runs a command", func(context.Context, tool.Call) (*tool.Result, error) {
		return nil, tool.NewError(tool.CodeNonZeroExit, "sh exited with status 1: \xff\xfe caf\xc3")
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object"}`))))
	tp, rec := newProvider(t)
	tr := tracing.New(tracing.WithTracerProvider(tp))
	ex := executor.MustNew(reg, executor.WithExtensions(tr, tr.Backend()))
	_, err := ex.Execute(context.Background(), tool.Call{
		ID: "call-\xff", Name: "sh", Agent: "agent-\xc0", Args: json.RawMessage(`{}`),
		Principal: tool.Principal{ID: "bob-\xed\xa0\x80"},
	})
	require.Error(t, err)
	spans := rec.Ended()
	require.Len(t, spans, 2, "the call span and the backend span")
	for _, s := range spans {
		assertValidUTF8(t, s)
		assert.Contains(t, s.Status().Description, "sh exited with status 1: \uFFFD", "span %q: the message is kept, the bad bytes read as U+FFFD", s.Name())
	}
}

// A long id of stray bytes grows as each becomes U+FFFD (3 bytes): it is
// still held to MaxValueBytes.
func TestAttackS30LongInvalidValueStaysBounded(t *testing.T) {
	tp, rec := newProvider(t)
	tr := tracing.New(tracing.WithTracerProvider(tp))
	ex := newExecutor(t, nil, tr)
	for _, id := range []string{strings.Repeat("a\xff", tracing.MaxValueBytes), strings.Repeat("\xff", 3*tracing.MaxValueBytes), strings.Repeat("a\xff", tracing.MaxValueBytes/3)} {
		_, err := ex.Execute(context.Background(), tool.Call{ID: id, Name: "work", Args: json.RawMessage(`{}`)})
		require.NoError(t, err)
	}
	spans := rec.Ended()
	require.Len(t, spans, 3)
	for i, s := range spans {
		assertValidUTF8(t, s)
		v := attrs(s)[tracing.KeyCallID].AsString()
		assert.LessOrEqual(t, len(v), tracing.MaxValueBytes, "call %d", i)
		assert.True(t, strings.HasSuffix(v, "…"), "call %d: the span says more was there", i)
	}
}

// The approval span says who decided and, when the approver failed, its
// error: a webhook approver's error quotes what the far end answered.
func TestAttackS30ApprovalSpanStringsAreUTF8(t *testing.T) {
	failing := extension.Func(extension.NameApproval, extension.PriorityApproval, func(extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalRequested, CallID: req.Call.ID, Tool: req.Call.Name})
			tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalDecided, CallID: req.Call.ID, Tool: req.Call.Name, Decision: "deny\xff",
				DecidedBy: "webhook \xfe", Error: "approver: hooks.example.com answered 502: \xff\xff"})
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
	spans := rec.Ended()
	require.Len(t, spans, 2, "the call span and the approval span")
	for _, s := range spans {
		assertValidUTF8(t, s)
	}
}
