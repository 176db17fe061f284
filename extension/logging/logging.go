// Package logging is the executor extension that writes one structured
// go.uber.org/zap line per tool call.
//
// Each line carries the call id, tool, principal, agent, session, trace and
// span ids, status, duration (from the executor receiving the call,
// extension.Request.Received, to the end of the chain inside logging),
// error code and message, the error's cause when it says more than the
// message (tool.Error.Err: the developer's side, which no model is sent;
// its head and tail when over 64 KiB, as the message's), and attempts. Each
// name and id keeps its first MaxFieldBytes: a model chooses some of them,
// of any length. The level follows the outcome:
//
//	succeeded          Info (or the level set by WithSuccessLevel)
//	denied, cancelled  Warn
//	failed, timed out  Error
//	panic              Error, with the stack
//
// Arguments are logged only with WithArgs, and then always redacted: the
// fields the tool declares secret (tool.Spec.Secrets, from
// `toolbelt:"secret"` tags or tool.WithSecrets) and keys whose names look
// like secrets (password, token, api_key, ...) become "[REDACTED]".
// The error message and cause get the same rule (internal/redact), and
// the argument values it masks are masked wherever the tool echoed them,
// as in the audit trail. A long one is redacted before it is cut to its
// head and tail, so that a secret a cut falls in is masked whole.
//
// zap escapes the C0 controls (a newline cannot start a line) but writes
// the others raw; the extension writes DEL, the C1 controls, the
// bidirectional overrides and isolates, and U+2028 and U+2029 (which end a
// line for Python's str.splitlines, editors and log viewers) of every
// string it logs as the visible text \uXXXX (in the arguments, a JSON
// escape of the same character), so that a tailed or parsed log cannot be
// erased, reordered or given a fake line by what a call or its tool said.
//
// The extension runs outermost (extension.PriorityLogging), so it sees every
// result, including those short-circuited by auth, policy, rate limits and
// approval, and the trace ids the tracing extension fills in.
package logging

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/internal/termesc"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Message is the message of every line the extension writes.
const Message = "tool call"

// Extension logs tool calls. Build it with New.
type Extension struct {
	log          *zap.Logger
	successLevel zapcore.Level
	args         bool
	message      string
}

// Option configures the extension.
type Option func(*Extension)

// WithSuccessLevel sets the level of successful calls (default Info; Debug
// keeps busy services quiet).
func WithSuccessLevel(l zapcore.Level) Option { return func(e *Extension) { e.successLevel = l } }

// WithArgs logs each call's arguments (field "args"), with secret fields
// redacted. Off by default: arguments can be large and personal.
func WithArgs(on bool) Option { return func(e *Extension) { e.args = on } }

// WithMessage replaces the line's message (default Message).
func WithMessage(msg string) Option { return func(e *Extension) { e.message = msg } }

// New returns the logging extension writing to logger. A nil logger means
// zap.L(), the global logger (a no-op unless the program replaced it).
func New(logger *zap.Logger, opts ...Option) *Extension {
	if logger == nil {
		logger = zap.L()
	}
	e := &Extension{log: logger, successLevel: zapcore.InfoLevel, message: Message}
	for _, o := range opts {
		if o != nil {
			o(e)
		}
	}
	return e
}

// Name implements extension.Extension.
func (e *Extension) Name() string { return "logging" }

// Priority implements extension.Extension: extension.PriorityLogging.
func (e *Extension) Priority() int { return extension.PriorityLogging }

// Wrap implements extension.Extension.
func (e *Extension) Wrap(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		start := req.Received // when the executor received the call
		if start.IsZero() {
			start = time.Now()
		}
		res := next(ctx, req)
		e.write(req, res, time.Since(start))
		return res
	}
}

// Refused implements extension.Observer: a call the executor refused before
// the chain (an unknown tool, invalid arguments) is logged like any other,
// so every call a model made leaves its line.
func (e *Extension) Refused(_ context.Context, call *tool.Call, spec *tool.Spec, res *tool.Result) {
	e.write(&extension.Request{Call: *call, Spec: spec}, res, 0)
}

// Level returns the level a result is logged at.
func (e *Extension) Level(res *tool.Result) zapcore.Level {
	if res.Error != nil && res.Error.Code == tool.CodePanic {
		return zapcore.ErrorLevel
	}
	switch res.SettledStatus() {
	case tool.StatusSucceeded:
		return e.successLevel
	case tool.StatusDenied, tool.StatusCancelled:
		return zapcore.WarnLevel
	default:
		return zapcore.ErrorLevel
	}
}

func (e *Extension) write(req *extension.Request, res *tool.Result, d time.Duration) {
	ce := e.log.Check(e.Level(res), e.message)
	if ce == nil {
		return
	}
	c := &req.Call
	attempts := res.Attempts
	if attempts == 0 {
		attempts = req.Attempt
	}
	// The fields slice escapes to the core (a zap.Field is 64 bytes): it
	// comes from a pool, since a core serializes the fields in Write and
	// keeps none of them (zapcore.Core's contract; zap's own cores, the
	// observer included, copy or encode them).
	fp := fieldPool.Get().(*[]zap.Field)
	fields := (*fp)[:0]
	defer func() {
		clear(fields) // drop the references to the call's strings
		*fp = fields[:0]
		fieldPool.Put(fp)
	}()
	// Every string that comes from the call or its result goes through
	// text: zap escapes the C0 controls but writes C1 controls raw. Names
	// and ids go through name too: callers choose their length.
	fields = append(fields,
		name("call_id", c.ID),
		name("tool", c.Name),
		text("status", string(res.SettledStatus())),
		zap.Duration("duration", d),
		zap.Int("attempts", attempts),
	)
	if c.Principal.ID != "" {
		fields = append(fields, name("principal", c.Principal.ID))
	}
	if c.Principal.Tenant != "" {
		fields = append(fields, name("tenant", c.Principal.Tenant))
	}
	if c.Agent != "" {
		fields = append(fields, name("agent", c.Agent))
	}
	if c.Session != "" {
		fields = append(fields, name("session", c.Session))
	}
	if c.TraceID != "" {
		fields = append(fields, name("trace_id", c.TraceID))
	}
	if c.SpanID != "" {
		fields = append(fields, name("span_id", c.SpanID))
	}
	var secrets []string
	if req.Spec != nil {
		secrets = req.Spec.Secrets
	}
	if res.Error != nil {
		// The one rule, and the values it masks in the arguments wherever
		// the tool echoed them (a password found by its key's name), as
		// the audit trail records them. Held as the cause is: a refused
		// call's message quotes the tool name the model chose, whole.
		msg := redact.HeadTail(res.Error.Message, maxCauseBytes, secrets, c.Args)
		fields = append(fields, text("error_code", string(res.Error.Code)), text("error", msg))
		// The cause is the developer's side (a missing principal's fix, a
		// misconfiguration), which no model is sent; a Go func's plain error
		// is its own message and is not logged twice.
		if cause := res.Error.Err; cause != nil && cause.Error() != res.Error.Message {
			fields = append(fields, text("cause", redact.HeadTail(cause.Error(), maxCauseBytes, secrets, c.Args)))
		}
		if res.Error.Code == tool.CodePanic {
			if s, ok := res.Metadata["stack"].(string); ok {
				fields = append(fields, text("stack", s))
			}
		}
	}
	if e.args {
		// In JSON, termesc's \u escapes decode to the arguments' own
		// characters.
		args := rawJSON(termesc.EscapeBytes(redact.Args(c.Args, secrets)))
		fields = append(fields, zap.Reflect("args", args))
	}
	// A logger built with AddStacktrace (zap's development config does so
	// from Warn) would attach the stack of this line to every denied or
	// failed call: always the same executor frames, one per call. A
	// denial is an outcome, not a bug; a panic carries its own stack above.
	ce.Stack = ""
	ce.Write(fields...)
}

// text is a string field whose characters a terminal acts on instead of
// printing, and that zap writes raw, are written as \uXXXX (termesc).
func text(key, s string) zap.Field { return zap.String(key, termesc.Escape(s)) }

// MaxFieldBytes bounds each name and id a line logs: the call id, the tool
// name, the principal, tenant, agent, session, trace and span ids. A model
// chooses a refused call's tool name and, through an MCP client, a call's
// id, of any length; a longer value keeps its first MaxFieldBytes (whole
// characters) and says how much was cut, as the audit trail and tracing
// do, so that one call cannot make a line of megabytes that log shippers
// drop or split.
const MaxFieldBytes = 4 << 10

// name is a text field held to MaxFieldBytes.
func name(key, s string) zap.Field { return text(key, textcut.Clip(s, MaxFieldBytes)) }

// maxCauseBytes bounds the cause a line logs. The executor holds an
// error's message to its output cap, but not the cause: a Go func's plain
// error (or an MCP server's) is both, and once the message is cut the two
// differ, so the whole text would be logged as the cause.
const maxCauseBytes = 64 << 10

// fieldPool holds field slices with room for every field write logs.
var fieldPool = sync.Pool{New: func() any {
	s := make([]zap.Field, 0, 16)
	return &s
}}

// rawJSON logs already-encoded JSON as a nested value in JSON encoders and
// as text in console encoders.
type rawJSON []byte

// MarshalJSON implements json.Marshaler.
func (r rawJSON) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}

// String returns the JSON text.
func (r rawJSON) String() string { return string(r) }
