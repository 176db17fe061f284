package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/approvalmeta"
	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/tool"
)

// MetaApproval is the result metadata key read for the approval decision
// (a string, a fmt.Stringer, or a map with a "decision" key as the approval
// extension and the executor's own refusals write), and one with
// approval.MetaModifiedKey as "modify" when the key is absent. A result's
// error code alone (tool.CodeApprovalDenied) records no decision: a tool's
// own error could claim one, and the executor takes both keys out of what
// a tool returns.
const MetaApproval = approval.MetaKey

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
			Kind:      KindIntent,
			Principal: c.Principal.ID, Tenant: c.Principal.Tenant, Roles: c.Principal.Roles,
			Agent: c.Agent, Session: c.Session, TraceID: c.TraceID, Mode: c.Mode,
		}
		setCall(&rec, c)
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
		if err := t.write(rec); err != nil {
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

		decision, decidedBy := approvalmeta.Decision(res.Metadata)
		out := Record{
			Kind:      KindOutcome,
			Principal: c.Principal.ID, Tenant: c.Principal.Tenant, Agent: c.Agent, Session: c.Session, TraceID: c.TraceID,
			Decision: decision, DecidedBy: decidedBy,
			Attempts: res.Attempts,
		}
		setCall(&out, c)
		out.Status = string(res.SettledStatus())
		if res.Error != nil {
			out.ErrorCode, out.Error = string(res.Error.Code), redact.Message(res.Error.Message, secrets, c.Args, intentArgs)
		}
		if !bytes.Equal(c.Args, intentArgs) {
			t.setArgs(&out, c.Args, secrets)
		}
		out.pending, out.secrets = t.keep(res, c.Args, intentArgs), secrets
		end := time.Now()
		out.Time = end
		out.DurationMS = float64(end.Sub(start)) / float64(time.Millisecond)
		if err := t.write(out); err != nil {
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
		Kind:      KindRefused,
		Principal: c.Principal.ID, Tenant: c.Principal.Tenant, Roles: c.Principal.Roles,
		Agent: c.Agent, Session: c.Session, TraceID: c.TraceID, Mode: c.Mode,
		Status: string(res.Status), Time: time.Now(),
	}
	setCall(&rec, c)
	if spec != nil {
		secrets = spec.Secrets
		rec.Risk = spec.Risk.String()
	}
	args := c.Args
	if len(args) > maxRefusedArgs {
		// Refused for their size, most likely, before anything decoded
		// them: the trail does not redact what a client sent either.
		rec.Omitted = join(rec.Omitted, fmt.Sprintf("arguments (%d bytes) left out: a refused call's record keeps at most %d", len(args), maxRefusedArgs))
		args = nil
	}
	t.setArgs(&rec, args, secrets)
	if res.Error != nil {
		rec.ErrorCode, rec.Error = string(res.Error.Code), redact.Message(res.Error.Message, secrets, args)
		// A refused call without an error keeps the status it was given:
		// it is no success to record.
		rec.Status = string(res.SettledStatus())
	}
	if err := t.write(rec); err != nil {
		t.onError(fmt.Errorf("audit trail unavailable: %w", err))
	}
}

// maxRefusedArgs is how many bytes of arguments a refused call's record
// keeps: the executor's default cap (executor.DefaultMaxArgBytes).
const maxRefusedArgs = 1 << 20

// join joins two notes for Omitted.
func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// maxModelField is how much of a tool name or a call ID a record keeps: a
// model chooses the one and its provider the other, so they are cut rather
// than refused (Write bounds a record's own fields), and the record says so.
const maxModelField = 4 << 10

// setCall sets rec's tool and call ID from c, cut to maxModelField.
func setCall(rec *Record, c *tool.Call) {
	rec.Tool, rec.CallID = c.Name, c.ID
	var cut []string
	if len(c.Name) > maxModelField {
		rec.Tool = textcut.Head(c.Name, maxModelField) + "…"
		cut = append(cut, fmt.Sprintf("tool (%d bytes)", len(c.Name)))
	}
	if len(c.ID) > maxModelField {
		rec.CallID = textcut.Head(c.ID, maxModelField) + "…"
		cut = append(cut, fmt.Sprintf("call_id (%d bytes)", len(c.ID)))
	}
	if len(cut) > 0 {
		rec.Omitted = fmt.Sprintf("cut to their first %d bytes: %s", maxModelField, strings.Join(cut, ", "))
	}
}

// pendingResult is what an outcome keeps of a result until the record is
// encoded (by the syncer, with WithSyncInterval): copies, read to the cap
// and past it by the slack, not yet redacted.
type pendingResult struct {
	bytes     int
	output    json.RawMessage // the structured output when it is within the cap
	outputCut bool            // there was output over the cap
	text      string          // the text blocks joined by newlines, read to textLimit+1 bytes, cut where a character starts
	textMore  bool            // there was more text than textLimit bytes
	textLeft  bool            // text blocks left out, the cap being spent
	args      []json.RawMessage
}

// keep copies what res returned, as far as the record will need it: the
// structured output whole if it fits the cap, then the text blocks read
// past the cap by as much as a secret can be long, so that redaction,
// before the cut, finds a secret the cap falls in whole; and copies of
// args (the call's arguments, and those it was asked with), whose secret
// values are masked wherever the tool echoed them. The caller may reuse
// res and its arguments once the call returns.
func (t *Trail) keep(res *tool.Result, args ...json.RawMessage) *pendingResult {
	p := &pendingResult{bytes: len(res.Output)}
	for _, c := range res.Content {
		p.bytes += len(c.Text) + len(c.Data)
	}
	budget := min(t.resultBytes, math.MaxInt/4) // budget+limit below cannot overflow
	if len(res.Output) > 0 {
		if len(res.Output) <= budget {
			p.output = append(json.RawMessage(nil), res.Output...)
		} else {
			p.outputCut = true
		}
	}
	for i, a := range args {
		if len(a) > 0 && (i == 0 || !bytes.Equal(a, args[0])) {
			p.args = append(p.args, append(json.RawMessage(nil), a...))
		}
	}
	limit := t.textLimit()
	var text strings.Builder
	for _, c := range res.Content {
		if c.Type != tool.ContentText || c.Text == "" {
			continue
		}
		if budget == 0 {
			p.textLeft = true
			break
		}
		if text.Len() > 0 {
			text.WriteByte('\n')
		}
		// One byte past the limit says there was more, unless the cut,
		// where a character starts, is short of it: textMore says so then.
		head := textcut.Head(c.Text, max(0, limit+1-text.Len()))
		text.WriteString(head)
		if p.textMore = len(head) < len(c.Text) || text.Len() > limit; p.textMore {
			break
		}
	}
	p.text = text.String()
	return p
}

// textLimit is how much of a result's text keep reads: the cap and the
// slack past it.
func (t *Trail) textLimit() int { return min(t.resultBytes, math.MaxInt/4) + resultSlack }

// size is about how many bytes p holds, for the queue's bound.
func (p *pendingResult) size() int {
	n := len(p.output) + len(p.text)
	for _, a := range p.args {
		n += len(a)
	}
	return n
}

// result redacts what keep kept, then cuts it to the trail's cap: the
// structured output whole or not at all, then the text, cut on a rune
// boundary. It runs when the record is encoded, off the caller's path with
// WithSyncInterval.
func (t *Trail) result(p *pendingResult, secrets []string) *Result {
	r := &Result{Bytes: p.bytes, Truncated: p.outputCut || p.textLeft}
	budget := min(t.resultBytes, math.MaxInt/4)
	if len(p.output) > 0 {
		r.Output = redact.Output(p.output, secrets, p.args...)
		if len(r.Output) > budget { // redaction made it longer than the cap
			r.Output, r.Truncated = nil, true
		}
		budget -= len(r.Output)
	}
	if p.text == "" {
		return r
	}
	if budget == 0 {
		r.Truncated = true
		return r
	}
	r.Truncated = r.Truncated || p.textMore // more than was read, however short redaction made it
	if p.textMore {
		// The read stopped inside the text, maybe inside a secret: what
		// of the slack redaction did not mask goes, also when redaction
		// made the text shorter than the cap.
		r.Text = redact.MessageHead(p.text, budget, secrets, p.args...)
	} else {
		r.Text = redact.Message(p.text, secrets, p.args...)
	}
	if len(r.Text) > budget {
		r.Text, r.Truncated = textcut.Head(r.Text, budget), true
	}
	return r
}

// resultSlack is how far past the cap result reads a text to redact it
// before cutting it (redact.CutSlack): short enough that the redaction of
// a large text (about 16 MB/s) stays under a millisecond. Of an echoed
// secret value longer than that, a prefix may be kept.
const resultSlack = redact.CutSlack

// setArgs puts a call's arguments on rec, to be redacted when rec is
// encoded (off the caller's path with WithSyncInterval).
func (t *Trail) setArgs(rec *Record, args json.RawMessage, secrets []string) {
	if len(args) == 0 {
		return
	}
	rec.Args, rec.redact, rec.secrets = args, true, secrets
}
