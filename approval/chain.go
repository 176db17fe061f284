package approval

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/toolbelt-go/toolbelt/approval/classify"
)

// FirstDecisive returns an Approver that asks approvers in order and returns
// the first definite decision: approve, deny or modify. An approver that
// abstains (Kind Abstain) passes the request to the next. An error, or a
// malformed decision, stops the chain with an error (fail closed). When every
// approver abstains, the chain denies.
//
// A typical chain puts a Policy first and a human second:
// FirstDecisive(policy, terminal).
func FirstDecisive(approvers ...Approver) Approver {
	list := compact(approvers)
	return ApproverFunc(func(ctx context.Context, req Request) (Decision, error) {
		for i, a := range list {
			if err := ctx.Err(); err != nil {
				return Decision{}, err
			}
			d, err := a.Approve(ctx, req.Clone())
			if err != nil {
				return Decision{}, fmt.Errorf("approver #%d: %w", i+1, err)
			}
			if err := d.Check(); err != nil {
				return Decision{}, fmt.Errorf("approver #%d: %w", i+1, err)
			}
			if d.Kind != Abstain {
				return d, nil
			}
		}
		return Denied("chain", "no approver decided about this call"), nil
	})
}

// Unanimous returns an Approver that asks every approver in order and
// approves only if all of them approve (or modify). It stops at the first
// denial, abstention, error or malformed decision, and denies. A
// modification is passed on: later approvers see the modified arguments,
// assessed again with the request's Tool (else judged dangerous; see
// modified) and with the subject read from them, and the result is a
// Modify with the last arguments. The result's DecidedBy joins every
// decider; its Scope is the narrowest given.
func Unanimous(approvers ...Approver) Approver {
	list := compact(approvers)
	return ApproverFunc(func(ctx context.Context, req Request) (Decision, error) {
		if len(list) == 0 {
			return Denied("chain", "no approver is configured in the unanimous chain"), nil
		}
		out := Decision{Kind: Approve, Scope: ScopeSessionTool}
		var by []string
		var notes []string
		for i, a := range list {
			if err := ctx.Err(); err != nil {
				return Decision{}, err
			}
			d, err := a.Approve(ctx, req.Clone())
			if err != nil {
				return Decision{}, fmt.Errorf("approver #%d: %w", i+1, err)
			}
			if err := d.Check(); err != nil {
				return Decision{}, fmt.Errorf("approver #%d: %w", i+1, err)
			}
			switch d.Kind {
			case Deny:
				return d, nil
			case Abstain:
				who := d.DecidedBy
				if who == "" {
					who = fmt.Sprintf("approver #%d", i+1)
				}
				return Denied(who, "not every approver approved this call ("+who+" abstained)"), nil
			case Modify:
				out.Kind, out.Args = Modify, d.Args
				req = modified(req, d, i)
			}
			if d.DecidedBy != "" {
				by = append(by, d.DecidedBy)
			}
			if d.Message != "" {
				notes = append(notes, d.Message)
			}
			out.Scope = min(out.Scope, d.Scope)
		}
		out.DecidedBy = strings.Join(by, ", ")
		out.Message = strings.Join(notes, "; ")
		return out, nil
	})
}

// modified is req as the approvers after the i-th (0-based), which gave
// the modification d, see it: with d's arguments, and no assessment of the
// model's. The level, reasons and subject the request came with describe
// the arguments it came with. With the tool (req.Tool, which the approval
// extension sets) the new arguments are assessed and their subject read
// as the extension does; without it (its Assessor: a shell tool's
// classifier) they are judged dangerous (blocked stays blocked): a policy
// after it refuses them with DenyDangerous and asks about them in auto
// mode (an abstention, so the chain denies), and a person is told why.
// The approval extension judges the modification again, with the tool,
// whatever the chain decides.
func modified(req Request, d Decision, i int) Request {
	req.Call.Args = d.Args
	if req.Tool != nil {
		req.Level, req.Reasons = LevelOf(req.Tool, &req.Spec, d.Args)
		req.Subject, _ = SubjectOf(req.Tool, d.Args)
		return req
	}
	who := d.DecidedBy
	if who == "" {
		who = fmt.Sprintf("approver #%d", i+1)
	}
	req.Level = max(req.Level, classify.Dangerous)
	req.Reasons = []string{"the arguments were modified by " + who + " and cannot be assessed again here: judged dangerous"}
	req.Subject = subjectOf(nil, &req.Spec, nil, d.Args).text
	return req
}

// Clone returns req with buffers of its own (arguments, roles, reasons,
// the spec's slices). Each approver of a chain (FirstDecisive, Unanimous)
// and approvalgate's approver is given one, so that one writing into what
// it was shown (a normaliser rewriting a path in place) changes neither
// what the approvers after it are shown nor what runs.
func (req Request) Clone() Request {
	req.Call.Args = bytes.Clone(req.Call.Args)
	req.Call.Principal.Roles = slices.Clone(req.Call.Principal.Roles)
	req.Principal.Roles = slices.Clone(req.Principal.Roles)
	req.Reasons = slices.Clone(req.Reasons)
	req.Spec = req.Spec.Clone()
	return req
}

func compact(approvers []Approver) []Approver {
	out := make([]Approver, 0, len(approvers))
	for _, a := range approvers {
		if a != nil {
			out = append(out, a)
		}
	}
	return out
}
