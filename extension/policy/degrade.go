package policy

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/toolbelt-go/toolbelt/tool"
)

// MetaDegraded is the result metadata key set on the call whose failure
// switched the policy to degraded (WithDegradeOnExhaustion): the reason,
// such as "no space left on device".
const MetaDegraded = "policy.degraded"

// WithDegradeOnExhaustion switches the policy to the degraded mode when a
// call fails because the host ran out of a resource: the call's error is,
// or wraps, ENOSPC (no space left on device), EDQUOT (disk quota exceeded)
// or ENOMEM (cannot allocate memory). A tool's own sandbox limits are not
// the host running out, and do not count.
//
// It switches only from normal or alert: a mode an operator chose that is
// stricter, or one the file declares, stays. Coming back is the operator's
// decision (SetMode). The failed call's result says so under MetaDegraded,
// and notify, when not nil, is told the mode left and why, once per switch,
// to log it or page someone. With the governance file's
// requires_approval_in_modes and forbidden_in_modes naming degraded, the
// calls that would make things worse then wait for a person or are refused.
//
// Errors that never reach the policy (those of extensions that run before
// it, such as the audit trail's) can be passed to Degrade:
//
//	audit.WithErrorHandler(func(err error) {
//		if policy.Exhausted(err) {
//			p.Degrade(err)
//		}
//	})
//
// A shell command that fails on a full disk reports an exit status, not
// the error, and does not switch.
func WithDegradeOnExhaustion(notify func(from string, cause error)) Option {
	return func(p *Policy) { p.degrade, p.notify = true, notify }
}

// Exhausted reports whether err is, or wraps, the host running out of disk
// space (ENOSPC, EDQUOT) or memory (ENOMEM).
func Exhausted(err error) bool { return exhaustedBy(err) != 0 }

// exhaustedBy returns the resource error err is or wraps, or 0.
func exhaustedBy(err error) syscall.Errno {
	for _, e := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.ENOMEM} {
		if errors.Is(err, e) {
			return e
		}
	}
	return 0
}

// Degrade switches the policy to the degraded mode because of cause, if the
// current mode is normal or alert, and reports whether it switched; the
// notify function of WithDegradeOnExhaustion, if any, is told. Of several
// calls at once, one switches.
func (p *Policy) Degrade(cause error) bool {
	for {
		cur := p.mode.Load()
		if *cur != tool.ModeNormal && *cur != tool.ModeAlert {
			return false
		}
		degraded := tool.ModeDegraded
		if p.mode.CompareAndSwap(cur, &degraded) {
			p.revoke(degraded)
			if p.notify != nil {
				p.notify(*cur, cause)
			}
			return true
		}
	}
}

// degradeOn switches to degraded when res failed for want of a resource,
// and says so on res.
func (p *Policy) degradeOn(res *tool.Result) {
	if res == nil || res.Error == nil {
		return
	}
	if errno := exhaustedBy(res.Error); errno != 0 && p.Degrade(res.Error) {
		res.SetMeta(MetaDegraded, fmt.Sprintf("switched to %s: %v", tool.ModeDegraded, errno.Error()))
	}
}
