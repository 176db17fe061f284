// Package approval decides whether a tool call may run when a human (or a
// rule standing in for one) has to agree first.
//
// The pieces:
//
//   - Approver is the contract: Approve(ctx, Request) (Decision, error). A
//     Request carries the call, the tool's spec, the principal, the assessed
//     danger Level and the reasons for it. A Decision approves, denies (with
//     a message the model will see) or modifies the call (new arguments),
//     says who decided, and has a Scope: this call, this session for this
//     tool and these arguments, or this session for this tool.
//   - Policy says, without asking anyone, whether a call is allowed, must be
//     asked about, or is refused: a Mode (auto, always ask, allow all, deny
//     all), lists of always-approve and always-ask tools, and rules such as
//     shell(git status*) or write_file(docs/**), evaluated deny → ask →
//     allow.
//   - Approvers: Terminal (an [A]pprove / [D]eny / [M]odify / [V]iew prompt on
//     any io.Reader and io.Writer), Queue (pending requests a UI or a remote
//     human resolves by id), ApproverFunc, and the chains FirstDecisive and
//     Unanimous.
//
// The executor glue, which asks an Approver when the spec, the mode, the
// policy or the assessed risk says so and binds the decision to the exact
// arguments that run, is the extension in package
// github.com/toolbelt-go/toolbelt/extension/approvalgate.
//
// Everything here fails closed: a zero Decision is not an approval, and
// Decision.Check rejects unknown kinds and modifications without arguments.
package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/internal/approvalmeta"
	"github.com/toolbelt-go/toolbelt/tool"
)

// MetaKey ("approval") is the result metadata key under which the
// approval extension records its decision (decision, decided_by, ...),
// which the audit trail and an agent's Decisions report. The executor
// takes it out of what a backend returns, so that no tool's result can
// claim an approval. The agent, the audit trail and the metrics read a
// decision under it one way: a string, a fmt.Stringer (a Kind), or a map
// with "decision" and "decided_by".
const MetaKey = approvalmeta.Key

// MetaModifiedKey ("modified_args") is the result metadata key the
// approval extension sets (true) when an approver changed the call's
// arguments; the executor takes it out of what a backend returns too.
// Alone, it records "modify".
const MetaModifiedKey = approvalmeta.ModifiedKey

// RequiredKey is the extension.Request value key through which an extension
// outside the approval extension (the policy extension, for operating modes
// that require approval) demands a human's approval. Its value is a string:
// the reason shown to the approver. Any other value type is treated as a
// demand too (fail closed), with a generic reason.
const RequiredKey = "approval.required"

// JudgeKey is the extension.Request value key under which an extension
// outside the approval extension that judges a call's arguments (the
// policy extension: path rules and sizes) leaves an ArgsJudge. Arguments
// an approver gives in place of the model's (a Modify decision) never
// passed that extension: the approval extension has the judge judge them,
// and refuses the modification it refuses. Any other value type refuses
// every modification (fail closed).
const JudgeKey = "approval.judge"

// ArgsJudge judges arguments the way the extension that left it under
// JudgeKey judged the model's: call is the call with the new arguments, t
// the called tool and spec its spec. A non-nil error refuses them; its
// message says why, for the model.
type ArgsJudge interface {
	JudgeArgs(call tool.Call, t tool.Tool, spec *tool.Spec) error
}

// Approver decides whether a call may run. Implementations must honour ctx:
// when it is done they return its error promptly. An error, like any
// Decision other than an approval or a valid modification, means the call
// does not run.
type Approver interface {
	Approve(ctx context.Context, req Request) (Decision, error)
}

// ApproverFunc adapts a function to Approver, the way http.HandlerFunc
// adapts one to http.Handler.
type ApproverFunc func(ctx context.Context, req Request) (Decision, error)

// Approve calls f(ctx, req).
func (f ApproverFunc) Approve(ctx context.Context, req Request) (Decision, error) {
	return f(ctx, req)
}

// Assessor is an optional interface of a tool.Tool that can judge the danger
// of a call from its arguments (a shell tool classifies its command line).
// When a tool implements it, the verdict is the call's Level; otherwise the
// Level is derived from the spec (see LevelOf).
type Assessor interface {
	Assess(args json.RawMessage) classify.Verdict
}

// Subjecter is an optional interface of a tool.Tool that names what a call
// acts on: the string the pattern of a rule such as shell(git status*) is
// matched against. Tools that do not implement it are judged by the path
// arguments their schema declares, else by the first string field among
// "command", "path", "file" and "url" (see SubjectOf).
type Subjecter interface {
	Subject(args json.RawMessage) string
}

// Request is what an Approver is asked about. It is plain data: a Queue
// hands it to a UI as is, and it serialises to JSON.
type Request struct {
	// Call is the call as it will run if approved.
	Call tool.Call `json:"call"`
	// Spec is the spec of the called tool.
	Spec tool.Spec `json:"spec"`
	// Tool is the called tool, when the asker has it (the approval
	// extension sets it), so that a Policy in a chain of approvers judges
	// the call as the extension's policy does: with the tool's Subject,
	// workspace, Assessor and the tool a wrapper runs. It is not
	// serialised; a request read back from JSON has none.
	Tool tool.Tool `json:"-"`
	// Principal is who the call acts for (a copy of Call.Principal).
	Principal tool.Principal `json:"principal,omitzero"`
	// Level is the assessed danger of the call.
	Level classify.Level `json:"level"`
	// Reasons explain Level (and, when set, why approval is required).
	Reasons []string `json:"reasons,omitempty"`
	// Subject is what the call acts on (a command line, a path, a URL), or
	// empty when the tool names none.
	Subject string `json:"subject,omitempty"`
	// Required, when not empty, says that something outside the approval
	// policy (the policy extension's operating mode) demands a human's
	// approval, and why.
	Required string `json:"required,omitempty"`
	// Why is the policy's reason for asking ("the approval rule \"ask
	// shell(git push*)\" asks about this call").
	Why string `json:"why,omitempty"`
	// OnceOnly says that a decision answers this call only: a Scope
	// beyond ScopeCall is not remembered for later calls, because the
	// tool is on the always-ask list (AlwaysAsk) or its spec requires
	// approval (Evaluation.EveryCall), the call has no session,
	// an extension demands approval (Required), or the approval extension
	// remembers nothing. An approver offers no session-wide choice then
	// (the dashboard shows no such button, Terminal no such key): it would
	// approve this one call while saying more.
	OnceOnly bool `json:"once_only,omitempty"`
}

// Kind is what a Decision does. The zero Kind is invalid, so a zero
// Decision never approves anything.
type Kind uint8

// The kinds of decision.
const (
	// Approve lets the call run with its arguments.
	Approve Kind = iota + 1
	// Deny refuses the call; Decision.Message is shown to the model.
	Deny
	// Modify lets the call run with Decision.Args instead of its own.
	Modify
	// Abstain means "no opinion": a FirstDecisive chain asks the next
	// approver. Anywhere else it is not an approval and the call is denied.
	Abstain
)

var kindNames = [...]string{"", "approve", "deny", "modify", "abstain"}

// String returns "approve", "deny", "modify", "abstain", or "kind(N)".
func (k Kind) String() string {
	if k >= Approve && k <= Abstain {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// MarshalText encodes the kind as its name.
func (k Kind) MarshalText() ([]byte, error) {
	if k < Approve || k > Abstain {
		return nil, fmt.Errorf("approval: invalid decision kind %d", uint8(k))
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText decodes "approve", "deny", "modify" or "abstain".
func (k *Kind) UnmarshalText(b []byte) error {
	s := strings.ToLower(strings.TrimSpace(string(b)))
	for i := Approve; i <= Abstain; i++ {
		if kindNames[i] == s {
			*k = i
			return nil
		}
	}
	return fmt.Errorf("approval: unknown decision kind %q: use approve, deny, modify or abstain", string(b))
}

// Scope is how far a Decision reaches beyond the call it answers. Sessions
// are tool.Call.Session; a call without a session is only ever decided for
// itself.
type Scope uint8

// The scopes, narrowest first. The zero Scope is ScopeCall.
const (
	// ScopeCall: this call only.
	ScopeCall Scope = iota
	// ScopeSessionArgs: this call and later calls in the same session to the
	// same tool with the same arguments (compared by canonical hash).
	ScopeSessionArgs
	// ScopeSessionTool: this call and later calls in the same session to the
	// same tool, whatever their arguments.
	ScopeSessionTool
)

var scopeNames = [...]string{"call", "session_args", "session_tool"}

// String returns "call", "session_args", "session_tool" or "scope(N)".
func (s Scope) String() string {
	if s <= ScopeSessionTool {
		return scopeNames[s]
	}
	return fmt.Sprintf("scope(%d)", uint8(s))
}

// MarshalText encodes the scope as its name.
func (s Scope) MarshalText() ([]byte, error) {
	if s > ScopeSessionTool {
		return nil, fmt.Errorf("approval: invalid scope %d", uint8(s))
	}
	return []byte(scopeNames[s]), nil
}

// UnmarshalText decodes "call", "session_args" or "session_tool".
func (s *Scope) UnmarshalText(b []byte) error {
	t := strings.ToLower(strings.TrimSpace(string(b)))
	for i, n := range scopeNames {
		if n == t {
			*s = Scope(i)
			return nil
		}
	}
	return fmt.Errorf("approval: unknown scope %q: use call, session_args or session_tool", string(b))
}

// Decision is an Approver's answer.
type Decision struct {
	// Kind is approve, deny, modify or abstain. The zero value is invalid.
	Kind Kind `json:"kind"`
	// Message is shown to the model on a denial ("use a dry run first");
	// on an approval or modification it is a note for the record.
	Message string `json:"message,omitempty"`
	// Args are the arguments to run with, for Modify: a JSON object.
	Args json.RawMessage `json:"args,omitempty"`
	// DecidedBy names who decided: a user, "policy", "terminal".
	DecidedBy string `json:"decided_by,omitempty"`
	// Scope is how far the decision reaches. Modifications are always for
	// this call only; their scope is ignored.
	Scope Scope `json:"scope,omitempty"`
}

// Approved returns an approval of this call by who.
func Approved(by string) Decision { return Decision{Kind: Approve, DecidedBy: by} }

// Denied returns a denial by who, with a message for the model.
func Denied(by, message string) Decision {
	return Decision{Kind: Deny, DecidedBy: by, Message: message}
}

// Modified returns a modification by who: run with args instead.
func Modified(by string, args json.RawMessage) Decision {
	return Decision{Kind: Modify, DecidedBy: by, Args: args}
}

// WithScope returns d with its scope set to s.
func (d Decision) WithScope(s Scope) Decision { d.Scope = s; return d }

// ErrMalformed is matched (errors.Is) by the error Check returns.
var ErrMalformed = errors.New("approval: malformed decision")

// Check reports whether d is a well-formed decision: a known kind and scope,
// and for Modify, arguments that are a JSON object. It does not check the
// arguments against the tool's schema (ValidateArgs does).
func (d Decision) Check() error {
	switch d.Kind {
	case Approve, Deny, Abstain:
	case Modify:
		if len(d.Args) == 0 {
			return fmt.Errorf("%w: kind modify carries no arguments: set Decision.Args to the JSON object to run with", ErrMalformed)
		}
		if _, err := decodeObject(d.Args); err != nil {
			return fmt.Errorf("%w: modified arguments: %v", ErrMalformed, err)
		}
	case 0:
		return fmt.Errorf("%w: kind is unset (a zero Decision): return Approved, Denied or Modified", ErrMalformed)
	default:
		return fmt.Errorf("%w: unknown kind %d: use approve, deny, modify or abstain", ErrMalformed, uint8(d.Kind))
	}
	if d.Scope > ScopeSessionTool {
		return fmt.Errorf("%w: unknown scope %d: use ScopeCall, ScopeSessionArgs or ScopeSessionTool", ErrMalformed, uint8(d.Scope))
	}
	return nil
}

// LevelOf returns the danger level of a call to t with args, and why: the
// tool's own verdict when it implements Assessor (or a tool it wraps does:
// AssessorOf), otherwise one derived from its spec (low risk → safe,
// medium or unset → warning, high → dangerous; a destructive, not
// read-only tool is at least dangerous).
func LevelOf(t tool.Tool, spec *tool.Spec, args json.RawMessage) (classify.Level, []string) {
	if a, ok := AssessorOf(t); ok {
		v := a.Assess(args)
		return v.Level, v.Reasons
	}
	return specLevel(spec)
}

func specLevel(spec *tool.Spec) (classify.Level, []string) {
	var l classify.Level
	var why []string
	switch spec.Risk.Effective() {
	case tool.RiskLow:
		l = classify.Safe
	case tool.RiskMedium:
		if spec.Risk == tool.RiskUnset {
			l, why = classify.Warning, []string{"tool risk is not set (treated as medium)"}
		} else {
			l, why = classify.Warning, []string{"tool risk is medium"}
		}
	default: // high, or an out-of-range value: fail closed
		l, why = classify.Dangerous, []string{"tool risk is " + spec.Risk.String()}
	}
	if spec.JudgedRisk() == tool.RiskHigh && l < classify.Dangerous { // marked destructive (tool.Spec.JudgedRisk)
		l, why = classify.Dangerous, append(why, "tool is marked destructive")
	}
	return l, why
}
