package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// Code is one of the closed set of sandbox error codes. The values follow the
// E3100 range of the seed specification so that callers (the tool package in
// particular) can map them one to one onto their own codes:
//
//	E3101 CodeCreateFailed     sandbox creation failed (engine missing, bad spec, start failed)
//	E3102 CodeResourceLimit    a resource limit was exceeded (CPU, file size, output, limits over parent)
//	E3103 CodeTimeout          the wall-clock timeout or the caller's deadline expired   (retryable)
//	E3104 CodeNetworkPolicy    the network policy cannot be honoured or was violated
//	E3105 CodeFilesystemPolicy a path was refused by the workspace
//	E3106 CodeConcurrency      too many runs in flight on this sandbox                   (retryable)
//	E3107 CodeCrashed          the engine or the command died in an unexplained way (signal, I/O failure)
//	E3108 CodeNonZeroExit      the command exited with a non-zero status
type Code string

// The closed set of codes; see [Code].
const (
	CodeCreateFailed     Code = "E3101"
	CodeResourceLimit    Code = "E3102"
	CodeTimeout          Code = "E3103"
	CodeNetworkPolicy    Code = "E3104"
	CodeFilesystemPolicy Code = "E3105"
	CodeConcurrency      Code = "E3106"
	CodeCrashed          Code = "E3107"
	CodeNonZeroExit      Code = "E3108"
)

// Retryable reports whether an operation that failed with this code may
// succeed when tried again unchanged: only timeouts and concurrency refusals.
func (c Code) Retryable() bool { return c == CodeTimeout || c == CodeConcurrency }

// Sentinel returns the sentinel error of the code (for example [ErrTimeout]
// for [CodeTimeout]), or nil for a code outside the set.
func (c Code) Sentinel() error {
	for _, s := range sentinels {
		if s.code == c {
			return s
		}
	}
	return nil
}

// codeError is the type of the sentinels, so that they carry their code.
type codeError struct {
	code Code
	msg  string
}

func (e *codeError) Error() string { return e.msg }

// Sentinel errors, one per [Code]; test with errors.Is.
var (
	ErrCreateFailed     error = &codeError{CodeCreateFailed, "sandbox creation failed"}
	ErrResourceLimit    error = &codeError{CodeResourceLimit, "resource limit exceeded"}
	ErrTimeout          error = &codeError{CodeTimeout, "timeout exceeded"}
	ErrNetworkPolicy    error = &codeError{CodeNetworkPolicy, "network policy violation"}
	ErrFilesystemPolicy error = &codeError{CodeFilesystemPolicy, "filesystem policy violation"}
	ErrConcurrency      error = &codeError{CodeConcurrency, "concurrent run limit exceeded"}
	ErrCrashed          error = &codeError{CodeCrashed, "sandbox crashed"}
	ErrNonZeroExit      error = &codeError{CodeNonZeroExit, "process exited non-zero"}
)

var sentinels = []*codeError{
	ErrCreateFailed.(*codeError), ErrResourceLimit.(*codeError), ErrTimeout.(*codeError),
	ErrNetworkPolicy.(*codeError), ErrFilesystemPolicy.(*codeError), ErrConcurrency.(*codeError),
	ErrCrashed.(*codeError), ErrNonZeroExit.(*codeError),
}

// Finer sentinels that sit under one of the codes; each error that carries one
// of them also matches its code's sentinel with errors.Is.
var (
	// ErrUnavailable: the engine asked for is not installed or cannot run on
	// this host (code E3101). The message carries the install hint.
	ErrUnavailable = errors.New("sandbox engine unavailable")
	// ErrInvalidSpec: a Spec, Limits or option is malformed (code E3101).
	ErrInvalidSpec = errors.New("invalid sandbox spec")
	// ErrExceedsParent: a child's limit is larger than its parent's (code E3102).
	ErrExceedsParent = errors.New("limit exceeds parent limit")
)

// Error is the error returned by sandbox runs and checks. It carries a [Code],
// the engine that produced it, the limit concerned (for E3102), a message a
// model or a human can act on, and the underlying cause.
//
// errors.Is(err, ErrTimeout) (or the sentinel of any code) works on it, as
// does errors.Is on the cause.
type Error struct {
	Code   Code   // one of the closed set
	Engine string // "process", "bwrap", "gvisor", or "" for checks outside a run
	Limit  string // the limit concerned, for CodeResourceLimit: "timeout", "cpu", "memory", "processes", "file size", "output"
	Msg    string // what happened and, where there is one, what to do about it
	Err    error  // the cause, may be nil
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("sandbox")
	if e.Engine != "" {
		b.WriteString(" (" + e.Engine + ")")
	}
	b.WriteString(": ")
	b.WriteString(string(e.Code))
	b.WriteString(" ")
	if s := e.Code.Sentinel(); s != nil {
		b.WriteString(s.Error())
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the code's sentinel and the cause, so errors.Is sees both.
func (e *Error) Unwrap() []error {
	errs := make([]error, 0, 2)
	if s := e.Code.Sentinel(); s != nil {
		errs = append(errs, s)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// Retryable reports whether the error's code is retryable.
func (e *Error) Retryable() bool { return e.Code.Retryable() }

// CodeOf returns the sandbox code carried by err (an [*Error], a [*PathError]
// or one of the sentinels, possibly wrapped), and false when err carries none.
func CodeOf(err error) (Code, bool) {
	if err == nil {
		return "", false
	}
	var se *Error
	if errors.As(err, &se) {
		return se.Code, true
	}
	var pe *PathError
	if errors.As(err, &pe) {
		return pe.Code(), true
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s.code, true
		}
	}
	return "", false
}

// IsRetryable reports whether err carries a retryable sandbox code.
func IsRetryable(err error) bool {
	c, ok := CodeOf(err)
	return ok && c.Retryable()
}

func newError(code Code, engine, limit string, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Engine: engine, Limit: limit, Msg: fmt.Sprintf(format, args...), Err: cause}
}
