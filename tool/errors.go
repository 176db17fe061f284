package tool

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Code classifies why a call did not succeed. The set is closed: every error
// the SDK produces carries one of the codes below, so callers (and models) can
// switch on it. Codes are stable strings, safe to log and to show to a model.
type Code string

// The closed set of error codes. Each constant documents when it is used and
// whether the same call may succeed if retried unchanged (see Code.Retryable).
const (
	// CodeNotFound: no tool is registered under the requested name. The
	// message names the closest registered names. Not retryable.
	CodeNotFound Code = "not_found"
	// CodeInvalidArguments: the arguments are not JSON, not an object, too
	// large, or break the tool's input schema. The message names every failing
	// field by path and rule. Not retryable unchanged.
	CodeInvalidArguments Code = "invalid_arguments"
	// CodeUnauthorized: the caller's principal may not call this tool. Not
	// retryable.
	CodeUnauthorized Code = "unauthorized"
	// CodePolicyDenied: a governance rule (mode, path glob, size) forbids the
	// call. The message names the rule. Not retryable.
	CodePolicyDenied Code = "policy_denied"
	// CodeApprovalDenied: a human or an approval policy refused the call, or
	// approval could not be obtained (the approval path fails closed). Not
	// retryable.
	CodeApprovalDenied Code = "approval_denied"
	// CodeRateLimited: a rate limit refused the call; RetryAfter says when a
	// token will be available. Retryable.
	CodeRateLimited Code = "rate_limited"
	// CodeTimeout: the call ran past its deadline and its backend was
	// cancelled. Retryable.
	CodeTimeout Code = "timeout"
	// CodeCancelled: the caller cancelled the call. Not retryable.
	CodeCancelled Code = "cancelled"
	// CodeSandbox: the sandbox could not be created or crashed (seed codes
	// E3101, E3107). Not retryable.
	CodeSandbox Code = "sandbox_failure"
	// CodeResourceLimit: the backend hit a resource limit (memory, CPU,
	// processes, file size, output). Not retryable unchanged.
	CodeResourceLimit Code = "resource_limit"
	// CodeFilesystemPolicy: a path is outside the workspace or refused by a
	// workspace rule. Not retryable.
	CodeFilesystemPolicy Code = "filesystem_policy"
	// CodeNetworkPolicy: an outbound request was refused by the network
	// guard (host not allowed, private address). Not retryable.
	CodeNetworkPolicy Code = "network_policy"
	// CodeConcurrencyLimit: too many calls are running (globally, per agent or
	// per tool) and the executor was told not to wait. Retryable.
	CodeConcurrencyLimit Code = "concurrency_limit"
	// CodeConflict: the call could not take a lock on a resource another call
	// holds. Retryable.
	CodeConflict Code = "conflict"
	// CodeNonZeroExit: a command ran and exited with a non-zero status. Not
	// retryable unchanged.
	CodeNonZeroExit Code = "non_zero_exit"
	// CodePanic: the tool (or an extension) panicked; the stack is in the
	// result's metadata. Not retryable.
	CodePanic Code = "panic"
	// CodeInvalidOutput: the tool returned output that breaks its own output
	// schema. Not retryable.
	CodeInvalidOutput Code = "invalid_output"
	// CodeUnavailable: a remote backend (HTTP service, MCP server) is down or
	// answered 429/503. Retryable.
	CodeUnavailable Code = "unavailable"
	// CodeToolError: the tool ran and failed in its own way: a Go func
	// returned a plain error (one without a code). The message is the
	// error's text, for the model; the Go error is the cause (Unwrap), and
	// the executor records its Go type under MetaErrorType. Not retryable,
	// unless the failure was the tool's own timeout.
	CodeToolError Code = "tool_error"
	// CodeInternal: anything else: a bug in the SDK or an extension, or an
	// error a backend other than a Go func returned without a code. Not
	// retryable.
	CodeInternal Code = "internal"
)

// Codes lists every code in the closed set, in documentation order.
var Codes = []Code{
	CodeNotFound, CodeInvalidArguments, CodeUnauthorized, CodePolicyDenied,
	CodeApprovalDenied, CodeRateLimited, CodeTimeout, CodeCancelled, CodeSandbox,
	CodeResourceLimit, CodeFilesystemPolicy, CodeNetworkPolicy, CodeConcurrencyLimit,
	CodeConflict, CodeNonZeroExit, CodePanic, CodeInvalidOutput, CodeUnavailable, CodeToolError,
	CodeInternal,
}

// Retryable reports whether a call that failed with this code may succeed if
// sent again unchanged (after RetryAfter, when set).
func (c Code) Retryable() bool {
	switch c {
	case CodeRateLimited, CodeTimeout, CodeConcurrencyLimit, CodeConflict, CodeUnavailable:
		return true
	}
	return false
}

// Valid reports whether c is one of the codes in Codes.
func (c Code) Valid() bool {
	for _, k := range Codes {
		if k == c {
			return true
		}
	}
	return false
}

// Status returns the result status that goes with a failure of this code.
func (c Code) Status() Status {
	switch c {
	case CodeUnauthorized, CodePolicyDenied, CodeApprovalDenied, CodeRateLimited,
		CodeFilesystemPolicy, CodeNetworkPolicy:
		return StatusDenied
	case CodeTimeout:
		return StatusTimedOut
	case CodeCancelled:
		return StatusCancelled
	}
	return StatusFailed
}

// Error is the error type of every failed call. It carries a code from the
// closed set, a message written for the model (it says what to change), and
// whether a retry may help. errors.Is matches two *Error values by code, so
// errors.Is(err, tool.ErrTimeout) works; errors.As reaches the *Error.
type Error struct {
	// Code is the failure's class.
	Code Code `json:"code"`
	// Message says what went wrong and, where possible, how to fix it.
	Message string `json:"message"`
	// Retryable says the same call may succeed later. It defaults to
	// Code.Retryable() in the constructors; a backend may override it.
	Retryable bool `json:"retryable,omitempty"`
	// RetryAfter, when positive, is how long to wait before retrying.
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	// Err is the underlying cause, if any; it is not serialised.
	Err error `json:"-"`
}

// Sentinels for errors.Is: errors.Is(err, tool.ErrRateLimited) is true for any
// *Error with CodeRateLimited.
var (
	ErrNotFound         = &Error{Code: CodeNotFound}
	ErrInvalidArguments = &Error{Code: CodeInvalidArguments}
	ErrUnauthorized     = &Error{Code: CodeUnauthorized}
	ErrPolicyDenied     = &Error{Code: CodePolicyDenied}
	ErrApprovalDenied   = &Error{Code: CodeApprovalDenied}
	ErrRateLimited      = &Error{Code: CodeRateLimited}
	ErrTimeout          = &Error{Code: CodeTimeout}
	ErrCancelled        = &Error{Code: CodeCancelled}
	ErrSandbox          = &Error{Code: CodeSandbox}
	ErrResourceLimit    = &Error{Code: CodeResourceLimit}
	ErrFilesystemPolicy = &Error{Code: CodeFilesystemPolicy}
	ErrNetworkPolicy    = &Error{Code: CodeNetworkPolicy}
	ErrConcurrencyLimit = &Error{Code: CodeConcurrencyLimit}
	ErrConflict         = &Error{Code: CodeConflict}
	ErrNonZeroExit      = &Error{Code: CodeNonZeroExit}
	ErrPanic            = &Error{Code: CodePanic}
	ErrInvalidOutput    = &Error{Code: CodeInvalidOutput}
	ErrUnavailable      = &Error{Code: CodeUnavailable}
	ErrToolError        = &Error{Code: CodeToolError}
	ErrInternal         = &Error{Code: CodeInternal}
)

// NewError returns an *Error with the code's default retryability.
func NewError(code Code, message string) *Error {
	return &Error{Code: code, Message: message, Retryable: code.Retryable()}
}

// Errorf is NewError with a formatted message. A %w verb in format sets Err.
func Errorf(code Code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	e := &Error{Code: code, Message: err.Error(), Retryable: code.Retryable()}
	if u := errors.Unwrap(err); u != nil {
		e.Err = u
	}
	return e
}

// Error implements error as "code: message".
func (e *Error) Error() string {
	if e == nil {
		return "<nil>"
	}
	if e.Message == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Message
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && e != nil && t != nil && t.Code == e.Code
}

// WithRetryAfter returns e with RetryAfter set and Retryable true.
func (e *Error) WithRetryAfter(d time.Duration) *Error {
	e.RetryAfter = d
	e.Retryable = true
	return e
}

// AsError turns any error into an *Error: an *Error found with errors.As is
// returned as is; context.DeadlineExceeded becomes CodeTimeout and
// context.Canceled CodeCancelled; anything else becomes CodeInternal with the
// error's text. It returns nil for a nil error.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var te *Error
	if errors.As(err, &te) && te != nil {
		return te
	}
	var cp interface{ ToolError() *Error }
	if errors.As(err, &cp) {
		if e := cp.ToolError(); e != nil {
			return e
		}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeTimeout, Message: "the call ran past its deadline", Retryable: true, Err: err}
	case errors.Is(err, context.Canceled):
		return &Error{Code: CodeCancelled, Message: "the call was cancelled", Err: err}
	}
	return &Error{Code: CodeInternal, Message: err.Error(), Err: err}
}

// ConfigError is a problem with one field of a tool's configuration, found
// when the tool is built or loaded (never at call time). Field is a dotted
// path inside the tool's configuration ("argv.2", "limits.timeout",
// "query.state"); the registry's loader maps it to the line of that key in
// a spec file. Every tool kind reports configuration mistakes with it.
type ConfigError struct {
	Field   string
	Message string
}

// Error implements error as "field: message".
func (e *ConfigError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// FieldPath returns the dotted path of the field in error.
func (e *ConfigError) FieldPath() string { return e.Field }

// MetaErrorType is the result metadata key under which the executor records
// the Go type of a tool_error's cause, past fmt.Errorf's wrapping
// ("*pgconn.PgError", "*fs.PathError"): for logs, traces and dashboards;
// metadata is not sent to the model.
const MetaErrorType = "error_type"

// MetaErrorCode ("error_code") is the result metadata key under which the
// executor keeps a code a tool gave that is not in Codes (valid UTF-8):
// the call fails as CodeToolError, since programs, metric labels and
// models switch on the closed set; metadata is not sent to the model.
const MetaErrorCode = "error_code"

// MetaTruncated ("truncated") is the result metadata key that says, true,
// that a cap cut the result: the executor's output cap, a shell tool's
// output budget, a file tool's. The wire formats then tell the model its
// output was truncated.
const MetaTruncated = "truncated"

// MetaStillRunning ("backend_still_running") is the result metadata key
// that says, true, that the call's backend ignored its context and still
// runs past its deadline (executor.WithDetach): its result is discarded,
// and the retry extension does not run the call again while it runs.
const MetaStillRunning = "backend_still_running"
