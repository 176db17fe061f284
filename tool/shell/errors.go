package shell

import (
	"context"
	"errors"
	"io/fs"

	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// ToolError turns an error from a sandbox run or a workspace operation into
// the *tool.Error a call fails with. It is the one place where sandbox codes
// meet tool codes; tool/builtin uses it too.
//
//	E3101 sandbox creation failed, E3107 crashed  → tool.CodeSandbox
//	E3102 resource limit (also a file too large)  → tool.CodeResourceLimit
//	E3103 timeout                                 → tool.CodeTimeout
//	E3104 network policy                          → tool.CodeNetworkPolicy
//	E3105 filesystem policy (workspace rule)      → tool.CodeFilesystemPolicy
//	E3106 concurrency                             → tool.CodeConcurrencyLimit
//	E3108 non-zero exit                           → tool.CodeNonZeroExit
//	context.Canceled                              → tool.CodeCancelled
//	context.DeadlineExceeded                      → tool.CodeTimeout
//	fs.ErrNotExist, fs.ErrExist                   → tool.CodeInvalidArguments
//	fs.ErrPermission                              → tool.CodeFilesystemPolicy
//
// An error that already is (or wraps) a *tool.Error is returned as that
// *tool.Error; anything else is tool.CodeInternal. The message is the
// error's text, which for workspace refusals names the path and the rule.
// The original error stays reachable through Unwrap. ToolError(nil) is nil.
func ToolError(err error) *tool.Error {
	if err == nil {
		return nil
	}
	var te *tool.Error
	if errors.As(err, &te) && te != nil {
		return te
	}
	if code, ok := sandbox.CodeOf(err); ok {
		var tc tool.Code
		switch code {
		case sandbox.CodeCreateFailed, sandbox.CodeCrashed:
			tc = tool.CodeSandbox
		case sandbox.CodeResourceLimit:
			tc = tool.CodeResourceLimit
		case sandbox.CodeTimeout:
			tc = tool.CodeTimeout
		case sandbox.CodeNetworkPolicy:
			tc = tool.CodeNetworkPolicy
		case sandbox.CodeFilesystemPolicy:
			tc = tool.CodeFilesystemPolicy
		case sandbox.CodeConcurrency:
			tc = tool.CodeConcurrencyLimit
		case sandbox.CodeNonZeroExit:
			tc = tool.CodeNonZeroExit
		default:
			tc = tool.CodeSandbox
		}
		return &tool.Error{Code: tc, Message: err.Error(), Retryable: tc.Retryable(), Err: err}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return &tool.Error{Code: tool.CodeCancelled, Message: "the call was cancelled: " + err.Error(), Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &tool.Error{Code: tool.CodeTimeout, Message: "the call ran past its deadline: " + err.Error(), Retryable: true, Err: err}
	case errors.Is(err, fs.ErrNotExist):
		return &tool.Error{Code: tool.CodeInvalidArguments, Message: err.Error() + ": check the path (list_directory shows what exists)", Err: err}
	case errors.Is(err, fs.ErrExist):
		return &tool.Error{Code: tool.CodeInvalidArguments, Message: err.Error(), Err: err}
	case errors.Is(err, fs.ErrPermission):
		return &tool.Error{Code: tool.CodeFilesystemPolicy, Message: err.Error(), Err: err}
	}
	return &tool.Error{Code: tool.CodeInternal, Message: err.Error(), Err: err}
}
