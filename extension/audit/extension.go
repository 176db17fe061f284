package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/tool"
)

// MetaApproval is the result metadata key read for the approval decision
// (a string, a fmt.Stringer, or a map with a "decision" key as the approval
// extension writes). A result with tool.CodeApprovalDenied is
// recorded as "deny" and one with metadata "modified_args" as "modify" when
// the key is absent.
const MetaApproval = "approval"

// MetaError is the result metadata key under which a fail-closed outcome
// keeps what the trail could not record.
const MetaError = "audit_error"

// Name implements extension.Extension.
func (t *Trail) Name() string { return "audit" }

// Priority implements extension.Extension: extension.PriorityAudit.
func (t *Trail) Priority() int { return extension.PriorityAudit }

// Wrap implements extension.Extension.
func (t *Trail) Wrap(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		c := &req.Call
		var secrets []string
		rec := Record{
			Kind: KindIntent, CallID: c.ID, Tool: c.Name,
			Principal: c.Principal.ID, Tenant: c.Principal.Tenant, Roles: c.Principal.Roles,
			Agent: c.Agent, Session: c.Session, TraceID: c.TraceID, Mode: c.Mode,
		}
		if req.Spec != nil {
			secrets = req.Spec.Secrets
			rec.Risk = req.Spec.Risk.String()
		}
		t.setArgs(&rec, c.Args, secrets)
		// The intent is stamped with the time the executor received the
		// call (one clock read fewer).
		start := req.Received
		if start.IsZero() {
			start = time.Now()
		}
		rec.Time = start
		intentArgs := c.Args
		if err := t.Write(rec); err != nil {
			err = fmt.Errorf("audit trail unavailable: %w", err)
			t.onError(err)
			if !t.failOpen {
				// The model is told what happened to the call; the storage
				// error (a path, a full disk) is the operator's, in the cause.
				return tool.Failure(c, &tool.Error{Code: tool.CodeInternal,
					Message: fmt.Sprintf("tool %q was not run: its audit record could not be written; do not retry now: tell the user", c.Name),
					Err:     fmt.Errorf("%w: the call was not run; fix the trail's storage (disk space, permissions) and call again", err)})
			}
		}

		res := next(ctx, req)

		out := Record{
			Kind: KindOutcome, CallID: c.ID, Tool: c.Name,
			Principal: c.Principal.ID, Tenant: c.Principal.Tenant, Agent: c.Agent, Session: c.Session, TraceID: c.TraceID,
			Decision: decision(res), DecidedBy: decidedBy(res),
			Attempts: res.Attempts,
		}
		out.Status = string(res.Status)
		if res.Error != nil {
			out.ErrorCode, out.Error = string(res.Error.Code), redact.Message(res.Error.Message, secrets, c.Args, intentArgs)
			if out.Status == "" || res.Status == tool.StatusSucceeded {
				out.Status = string(res.Error.Code.Status())
			}
		}
		if out.Status == "" {
			out.Status = string(tool.StatusSucceeded)
		}
		if !bytes.Equal(c.Args, intentArgs) {
			t.setArgs(&out, c.Args, secrets)
		}
		out.Result = t.result(res)
		out.redact, out.secrets, out.echoes = true, secrets, []json.RawMessage{c.Args, intentArgs}
		end := time.Now()
		out.Time = end
		out.DurationMS = float64(end.Sub(start)) / float64(time.Millisecond)
		if err := t.Write(out); err != nil {
			err = fmt.Errorf("audit trail unavailable: %w", err)
			t.onError(err)
			if !t.failOpen {
				// The backend already ran: say so, so nobody retries a
				// side effect blindly, and keep what happened.
				res.SetMeta(MetaError, fmt.Sprintf("outcome %q not recorded: %v", out.Status, err))
				res.Error = &tool.Error{Code: tool.CodeInternal,
					Message: fmt.Sprintf("tool %q ran and ended %q, but its outcome could not be recorded; do not run it again without asking the user", c.Name, out.Status),
					Err:     fmt.Errorf("%w: the call ran and ended %q but its outcome could not be recorded", err, out.Status)}
				res.Status = tool.StatusFailed
			}
		}
		return res
	}
}

// Refused implements extension.Observer: a call the executor refused before
// the chain (an unknown tool, invalid arguments) leaves one "refused"
// record, so the trail accounts for every call a model made. Nothing ran,
// so a write failure here only reaches the error handler.
func (t *Trail) Refused(ctx context.Context, c *tool.Call, spec *tool.Spec, res *tool.Result) {
	var secrets []string
	rec := Record{
		Kind: KindRefused, CallID: c.ID, Tool: c.Name,
		Principal: c.Principal.ID, Tenant: c.Principal.Tenant, Roles: c.Principal.Roles,
		Agent: c.Agent, Session: c.Session, TraceID: c.TraceID, Mode: c.Mode,
		Status: string(res.Status), Time: time.Now(),
	}
	if spec != nil {
		secrets = spec.Secrets
		rec.Risk = spec.Risk.String()
	}
	t.setArgs(&rec, c.Args, secrets)
	if res.Error != nil {
		rec.ErrorCode, rec.Error = string(res.Error.Code), redact.Message(res.Error.Message, secrets, c.Args)
		if rec.Status == "" {
			rec.Status = string(res.Error.Code.Status())
		}
	}
	if err := t.Write(rec); err != nil {
		t.onError(fmt.Errorf("audit trail unavailable: %w", err))
	}
}

// result keeps what res returned, up to the trail's cap: the structured
// output whole or not at all, then the text blocks, cut on a rune
// boundary.
func (t *Trail) result(res *tool.Result) *Result {
	r := &Result{Bytes: len(res.Output)}
	for _, c := range res.Content {
		r.Bytes += len(c.Text) + len(c.Data)
	}
	budget := t.resultBytes
	if len(res.Output) > 0 {
		if len(res.Output) <= budget {
			r.Output = res.Output // Write copies what it keeps past its return
			budget -= len(res.Output)
		} else {
			r.Truncated = true
		}
	}
	var text strings.Builder
	for _, c := range res.Content {
		if c.Type != tool.ContentText || c.Text == "" {
			continue
		}
		if text.Len() > 0 {
			text.WriteByte('\n')
		}
		// One byte past the budget says there was more.
		text.WriteString(c.Text[:min(len(c.Text), max(0, budget+1-text.Len()))])
		if text.Len() > budget {
			break
		}
	}
	r.Text = text.String()
	if len(r.Text) > budget {
		cut := budget
		for cut > 0 && !utf8.RuneStart(r.Text[cut]) {
			cut--
		}
		r.Text, r.Truncated = r.Text[:cut], true
	}
	return r
}

// setArgs puts a call's arguments on rec, to be redacted when rec is
// encoded (off the caller's path with WithSyncInterval).
func (t *Trail) setArgs(rec *Record, args json.RawMessage, secrets []string) {
	if len(args) == 0 {
		return
	}
	rec.Args, rec.redact, rec.secrets = args, true, secrets
}

// decidedBy is who made the approval decision, from the metadata the
// approval extension writes.
func decidedBy(res *tool.Result) string {
	if m, ok := res.Metadata[MetaApproval].(map[string]any); ok {
		if s, ok := m["decided_by"].(string); ok {
			return s
		}
	}
	return ""
}

func decision(res *tool.Result) string {
	v := res.Metadata[MetaApproval]
	if m, ok := v.(map[string]any); ok {
		v = m["decision"]
	}
	switch d := v.(type) {
	case string:
		return d
	case fmt.Stringer:
		return d.String()
	}
	if res.Error != nil && res.Error.Code == tool.CodeApprovalDenied {
		return "deny"
	}
	if _, ok := res.Metadata["modified_args"]; ok {
		return "modify"
	}
	return ""
}
