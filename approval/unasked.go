package approval

import (
	"fmt"
	"strings"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Unasked returns the refusal (tool.CodeApprovalDenied) of a call that
// needs a person's approval where nobody can be asked: an executor without
// an approval extension calls it before running a backend. A call needs a
// person when its tool requires approval (Spec.RequiresApproval), or when
// the tool judges the command line the call runs dangerous (Assessor: the
// bash tool's classifier). It returns nil when the call may run.
//
// A tool's fixed risk does not count: whoever registered a high-risk tool
// without an approval extension chose that, while a command line is the
// model's. Blocked is the tool's own to refuse (the shell tools do, unless
// AllowBlocked), and arguments it cannot read as a command line (a verdict
// with no commands that is not Incomplete) fail in its Run as invalid
// arguments.
func Unasked(call *tool.Call, t tool.Tool, spec *tool.Spec) *tool.Result {
	why, cause := "it needs a person's approval", "requires approval (tool.WithApproval, requires_approval)"
	fix := "or drop the requirement"
	if spec == nil || !spec.RequiresApproval {
		a, ok := AssessorOf(t)
		if !ok {
			return nil
		}
		v := a.Assess(call.Args)
		if v.Level != classify.Dangerous || len(v.Commands) == 0 && !v.Incomplete {
			return nil
		}
		judged := v.Level.String()
		if len(v.Reasons) > 0 {
			judged += " (" + strings.Join(v.Reasons, "; ") + ")"
		}
		why = "this call is judged " + judged + " and needs a person's approval"
		cause = "was called in a way judged " + judged
		fix = "or, to run such calls unasked, approvalgate with approval.ModeAllowAll (which still refuses blocked ones)"
	}
	res := unasked(call, why)
	res.Error.Err = fmt.Errorf("executor: tool %q %s, but no approval extension is installed: add approvalgate.New(approver) and its Guard to WithExtensions, %s", call.Name, cause, fix)
	return res
}

// UnaskedDemand is Unasked for a call that an extension demanded a
// person's approval for (RequiredKey: the governance policy does so in a
// mode listed in requires_approval_in_modes); demand is the value it left,
// the reason when it is a string. It returns the refusal, never nil.
func UnaskedDemand(call *tool.Call, demand any) *tool.Result {
	reason, ok := demand.(string)
	if !ok || reason == "" {
		reason = fmt.Sprintf("an extension demands approval (%s holds %T)", RequiredKey, demand)
	}
	res := unasked(call, "it needs a person's approval")
	res.Error.Err = fmt.Errorf("executor: %s, but no approval extension is installed: add approvalgate.New(approver) and its Guard to WithExtensions, or drop the demand", reason)
	return res
}

// unasked is the refusal of a call nobody could be asked about, with the
// decision in MetaKey as the approval extension records its own: records
// read a denial from there, never from the error code alone, which a
// tool's own error could carry.
func unasked(call *tool.Call, why string) *tool.Result {
	res := tool.Fail(call, tool.CodeApprovalDenied, fmt.Sprintf("tool %q was not run: %s, and none could be obtained here; do not retry now: tell the user", call.Name, why))
	res.SetMeta(MetaKey, map[string]any{"decision": "deny", "decided_by": "executor"})
	return res
}

// AssessorOf returns t's Assessor, looking through wrappers that expose the
// tool they run (an Unwrap() tool.Tool method, as the loader's go-type
// definitions do): a wrapper must not hide the judgement of the command
// lines its tool runs. It gives up after 16 wrappers, and on a nil tool.
func AssessorOf(t tool.Tool) (Assessor, bool) { return tool.As[Assessor](t) }
