package dashboard

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/tool"
)

// maxDecisionBytes bounds the body of a decision (modified arguments
// included).
const maxDecisionBytes = 1 << 20

// serveIndex serves the page: the same bytes to everyone (see
// publicFiles); what is this dashboard's comes from the API.
func (h *Handler) serveIndex(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	http.ServeFileFS(w, r, assets, "assets/index.html")
}

// Session is what the page learns when it opens, with the token: the
// CSRF token its decisions carry (in CSRFHeader), and whether it has an
// approvals panel (WithQueue).
type Session struct {
	CSRF      string `json:"csrf"`
	Approvals bool   `json:"approvals"`
}

func (h *Handler) serveSession(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, Session{CSRF: h.csrf, Approvals: h.queue != nil})
}

// Approval is a pending approval as the page shows it.
type Approval struct {
	ID          string    `json:"id"`
	Since       time.Time `json:"since"`
	Tool        string    `json:"tool"`
	Description string    `json:"description"`
	Risk        string    `json:"risk"`
	Level       string    `json:"level"`
	Reasons     []string  `json:"reasons,omitempty"`
	Why         string    `json:"why,omitempty"`
	Required    string    `json:"required,omitempty"`
	Subject     string    `json:"subject,omitempty"`
	Agent       string    `json:"agent,omitempty"`
	Session     string    `json:"session,omitempty"`
	Principal   string    `json:"principal,omitempty"`
	// Tenant is the principal's tenant: alice of acme is not alice of
	// globex, and the person deciding must see which one asks.
	Tenant string `json:"tenant,omitempty"`
	// Args are the arguments as they will run, indented, with the tool's
	// secret fields masked.
	Args string `json:"args"`
	// Schema is the tool's input schema, for the editor.
	Schema json.RawMessage `json:"schema,omitempty"`
	// ArgsDigest names the arguments byte for byte (the hex SHA-256 of
	// them as the model sent them). The page sends it back with its
	// decision (Decision.ArgsDigest): the id alone hashes the canonical
	// arguments, where a repeated key counts once and
	// 0.1000000000000000000001 is 0.1.
	ArgsDigest string `json:"args_digest"`
	// OnceOnly is the request's approval.Request.OnceOnly: a decision
	// answers this call alone, and the page offers no session-wide one.
	OnceOnly bool `json:"once_only,omitempty"`
}

// argsDigest is Approval.ArgsDigest.
func argsDigest(args json.RawMessage) string {
	sum := sha256.Sum256(args)
	return hex.EncodeToString(sum[:])
}

func approvalOf(p approval.Pending) Approval {
	req := p.Request
	args := maskDeclared(req.Call.Args, req.Spec.Secrets)
	if b, ok := indentArgs(args); ok {
		args = b
	}
	return Approval{
		ID: p.ID, Since: p.Since, Tool: req.Call.Name, Description: req.Spec.Description,
		Risk: req.Spec.Risk.String(), Level: req.Level.String(), Reasons: req.Reasons, Why: req.Why,
		Required: req.Required, Subject: req.Subject, Agent: clipName(req.Call.Agent), Session: clipName(req.Call.Session),
		Principal: clipName(req.Principal.ID), Tenant: clipName(req.Principal.Tenant), Args: string(args), Schema: req.Spec.InputSchema, ArgsDigest: argsDigest(req.Call.Args),
		OnceOnly: req.OnceOnly,
	}
}

// clipName holds a name or an id the caller chose (an agent, a session, a
// principal) to what the call's events and history record keep of it.
func clipName(s string) string { return textcut.Clip(s, executor.MaxRecordFieldBytes) }

// maxIndentDepth is how deep arguments are indented; deeper ones are shown
// as sent (each line's indent is as deep as the line: 18 kB of brackets,
// 9,000 levels, made 162 MB).
const maxIndentDepth = 64

// indentArgs writes one JSON value indented, as it was written: keys in
// their order, a key given twice shown twice (decoders differ on which one
// they keep), numbers as written (not through float64). Strings are
// written again from their decoded text, with <, > and & as they are: the
// page renders text, not markup, and a person should read "<img" and
// "path" rather than "\u003cimg" and "\u0070ath". ok is false when args
// is not one JSON value, or nests deeper than maxIndentDepth.
func indentArgs(args []byte) (out []byte, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var b bytes.Buffer
	str := json.NewEncoder(&b)
	str.SetEscapeHTML(false)
	type level struct {
		object bool
		items  int // tokens written inside: keys and values
	}
	var stack []level
	values := 0 // at the top
	newline := func() {
		b.WriteByte('\n')
		for range stack {
			b.WriteString("  ")
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
		if d, isDelim := tok.(json.Delim); isDelim && (d == '}' || d == ']') {
			if len(stack) == 0 {
				return nil, false
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.items > 0 {
				newline()
			}
			b.WriteByte(byte(d))
			continue
		}
		if n := len(stack); n == 0 {
			if values++; values > 1 {
				return nil, false
			}
		} else {
			top := &stack[n-1]
			if top.object && top.items%2 == 1 {
				b.WriteString(": ")
			} else {
				if top.items > 0 {
					b.WriteByte(',')
				}
				newline()
			}
			top.items++
		}
		switch v := tok.(type) {
		case json.Delim:
			if len(stack) == maxIndentDepth {
				return nil, false // indents as deep as the lines: n² bytes
			}
			b.WriteByte(byte(v))
			stack = append(stack, level{object: v == '{'})
		case string:
			if str.Encode(v) != nil {
				return nil, false
			}
			b.Truncate(b.Len() - 1) // Encode's newline
		case json.Number:
			b.WriteString(string(v))
		case bool:
			b.WriteString(strconv.FormatBool(v))
		case nil:
			b.WriteString("null")
		}
	}
	if values != 1 || len(stack) != 0 {
		return nil, false
	}
	return b.Bytes(), true
}

func (h *Handler) listApprovals(w http.ResponseWriter, r *http.Request) {
	out := []Approval{}
	if h.queue != nil {
		list, err := h.queue.PendingContext(r.Context())
		if err != nil {
			writeError(w, http.StatusServiceUnavailable, "the approval store cannot be read, so what waits is unknown: "+err.Error())
			return
		}
		tenant, scoped := scope(r)
		for _, p := range list {
			if scoped && p.Request.Principal.Tenant != tenant {
				continue
			}
			out = append(out, approvalOf(p))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// Decision is what the page sends to decide an approval.
type Decision struct {
	// Action is approve, approve_session (this tool, the rest of the
	// session), deny or modify.
	Action string `json:"action"`
	// Message is told to the model on deny.
	Message string `json:"message,omitempty"`
	// Args are the arguments to run with, on modify.
	Args json.RawMessage `json:"args,omitempty"`
	// ArgsDigest, when given, is the Approval.ArgsDigest of what the
	// person saw: a call whose arguments are not those is not decided.
	ArgsDigest string `json:"args_digest,omitempty"`
	// Since, when given, is the Approval.Since of what the person saw: the
	// request the card showed. An approval approves one run, so the same
	// call asked again (a model repeating an id and arguments) waits under
	// the same id with the same arguments, and only its arrival tells it
	// from the request a decision was sent for.
	Since time.Time `json:"since,omitzero"`
}

func (h *Handler) decide(w http.ResponseWriter, r *http.Request) {
	if h.queue == nil {
		writeError(w, http.StatusNotFound, "this dashboard has no approval queue (dashboard.WithQueue)")
		return
	}
	id := r.PathValue("id")
	var in Decision
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxDecisionBytes))
	if err == nil {
		err = json.Unmarshal(body, &in)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "the decision is not a JSON object {action, message, args}: "+err.Error())
		return
	}
	list, err := h.queue.PendingContext(r.Context())
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "the approval store cannot be read, so nothing was decided: "+err.Error())
		return
	}
	var pending *approval.Pending
	tenant, scoped := scope(r)
	for _, p := range list {
		// Another tenant's approval is answered as one that does not
		// wait: whether it does is that tenant's business.
		if p.ID == id && (!scoped || p.Request.Principal.Tenant == tenant) {
			pending = &p
			break
		}
	}
	if pending == nil {
		msg := fmt.Sprintf("approval %s is no longer pending (decided elsewhere, timed out or cancelled)", id)
		if scoped {
			// The same words for another tenant's id as for nobody's.
			msg += fmt.Sprintf("; this page lists and decides the approvals of tenant %q only: reload the list", tenant)
		}
		writeError(w, http.StatusNotFound, msg)
		return
	}
	if in.ArgsDigest != "" && in.ArgsDigest != argsDigest(pending.Request.Call.Args) {
		writeError(w, http.StatusConflict, fmt.Sprintf("the arguments of approval %s changed since the page showed them: nothing was decided; read the card again", id))
		return
	}
	if !in.Since.IsZero() && !in.Since.Equal(pending.Since) {
		writeError(w, http.StatusConflict, fmt.Sprintf("approval %s waiting now is not the request the page showed (that one arrived %s, this one %s: the call was asked again after an earlier decision, and an approval approves one run): nothing was decided; read the card again",
			id, in.Since.Format(time.RFC3339Nano), pending.Since.Format(time.RFC3339Nano)))
		return
	}
	who := h.who(r)
	var d approval.Decision
	switch in.Action {
	case "approve":
		d = approval.Approved(who)
	case "approve_session":
		d = approval.Approved(who).WithScope(approval.ScopeSessionTool)
	case "deny":
		msg := strings.TrimSpace(in.Message)
		if msg == "" {
			msg = "denied from the dashboard"
		}
		d = approval.Denied(who, msg)
	case "modify":
		if f := maskedSecret(in.Args, pending.Request.Spec.Secrets); f != "" {
			writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("%s still holds %s, the mask the page shows in place of a secret: the call would run with that text; type the value to run with, or approve without modifying", f, redact.Mask))
			return
		}
		args, err := approval.ValidateArgs(&pending.Request.Spec, in.Args)
		if err != nil {
			writeError(w, http.StatusUnprocessableEntity, err.Error())
			return
		}
		d = approval.Modified(who, args)
	default:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("action %q is not one of approve, approve_session, deny, modify", in.Action))
		return
	}
	// The request checked above, and no other: the same call asked again
	// meanwhile waits under the same id.
	if err := h.queue.ResolvePending(context.WithoutCancel(r.Context()), *pending, d); err != nil {
		status := http.StatusConflict
		if !errors.Is(err, approval.ErrNotPending) {
			status = http.StatusBadRequest
		}
		writeError(w, status, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": id, "decision": d.Kind.String(), "decided_by": who})
}

// Call is one finished call in the history, as the page shows it.
type Call struct {
	// Seq numbers the executor's records, every tenant's: zero on a page
	// limited to one tenant (WithTenant), where its gaps would count the
	// calls of others.
	Seq        uint64    `json:"seq"`
	CallID     string    `json:"call_id"`
	Tool       string    `json:"tool"`
	Agent      string    `json:"agent,omitempty"`
	Session    string    `json:"session,omitempty"`
	Principal  string    `json:"principal,omitempty"`
	Tenant     string    `json:"tenant,omitempty"`
	Status     string    `json:"status"`
	Code       string    `json:"code,omitempty"`
	Message    string    `json:"message,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	DurationMS float64   `json:"duration_ms"`
	Attempts   int       `json:"attempts"`
}

func (h *Handler) serveHistory(w http.ResponseWriter, r *http.Request) {
	q, err := historyQuery(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	tenant, scoped := scope(r)
	if scoped {
		if v := r.URL.Query(); v.Has("tenant") && v.Get("tenant") != tenant {
			writeError(w, http.StatusForbidden, fmt.Sprintf("this page shows the calls of tenant %q only: leave the tenant filter out", tenant))
			return
		}
		if q.For != nil {
			q.For.Tenant = tenant
		} else {
			q.Tenant = tenant
		}
	}
	limit := q.Limit
	if scoped && tenant == "" && q.For == nil {
		// A query's empty Tenant selects every tenant's records: the
		// newest limit of them would leave the page of the principals of
		// no tenant as many of its own as others' calls left room for.
		// It reads them all, as its charts do, and keeps its own newest.
		q.Limit = 0
	}
	recs := h.ex.History(q)
	out := make([]Call, 0, min(len(recs), limit))
	for i := len(recs) - 1; i >= 0 && len(out) < limit; i-- { // newest first
		rec := recs[i]
		if scoped && rec.Tenant != tenant {
			continue
		}
		if scoped {
			rec.Seq = 0 // it counts every tenant's calls
		}
		out = append(out, Call{Seq: rec.Seq, CallID: rec.CallID, Tool: rec.Tool, Agent: rec.Agent, Session: rec.Session,
			Principal: rec.Principal, Tenant: rec.Tenant,
			Status: string(rec.Status), Code: string(rec.Code), Message: tail(redact.String(rec.Message)), StartedAt: rec.StartedAt,
			DurationMS: ms(rec.Duration), Attempts: rec.Attempts})
	}
	writeJSON(w, http.StatusOK, out)
}

// historyQuery reads the filters: tool, agent, principal (with tenant:
// that principal of that tenant only, executor.HistoryQuery.For), tenant
// (alone: every principal of it), status, since (RFC 3339, or a duration
// back from now such as 15m) and limit (default 200).
func historyQuery(r *http.Request) (executor.HistoryQuery, error) {
	v := r.URL.Query()
	q := executor.HistoryQuery{Tool: v.Get("tool"), Agent: v.Get("agent"), Status: tool.Status(v.Get("status")), Limit: 200}
	if v.Has("principal") {
		q.For = &tool.Principal{ID: v.Get("principal"), Tenant: v.Get("tenant")}
	} else {
		q.Tenant = v.Get("tenant")
	}
	if s := v.Get("since"); s != "" {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			q.Since = time.Now().Add(-d)
		} else if t, err := time.Parse(time.RFC3339, s); err == nil {
			q.Since = t
		} else {
			return q, fmt.Errorf("since %q is neither a duration (15m) nor an RFC 3339 time", s)
		}
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 || n > 10_000 {
			return q, fmt.Errorf("limit %q is not a number from 1 to 10000", s)
		}
		q.Limit = n
	}
	return q, nil
}

// ToolStats is one tool's figures for the charts.
type ToolStats struct {
	Tool      string  `json:"tool"`
	Calls     uint64  `json:"calls"`
	Failed    uint64  `json:"failed"`
	ErrorRate float64 `json:"error_rate"`
	MeanMS    float64 `json:"mean_ms"`
	P95MS     float64 `json:"p95_ms"`
	InFlight  int64   `json:"in_flight"`
	// Source says where the figures come from: "metrics" (every call since
	// start) or "history" (the calls the history still holds).
	Source string `json:"source"`
}

func (h *Handler) serveStats(w http.ResponseWriter, r *http.Request) {
	var out []ToolStats
	// The metrics count every tenant's calls: a page limited to one
	// tenant counts from that tenant's history.
	tenant, scoped := scope(r)
	if h.mem != nil && !scoped {
		for name, t := range h.mem.Snapshot().Tools {
			s := ToolStats{Tool: name, Calls: t.Total(), InFlight: t.InFlight, Source: "metrics"}
			s.Failed = s.Calls - t.Calls[tool.StatusSucceeded]
			if t.Latency.Count > 0 {
				s.MeanMS = ms(t.Latency.Sum) / float64(t.Latency.Count)
				s.P95MS = quantile(t.Latency.Bounds, t.Latency.Counts, t.Latency.Count, 0.95) * 1000
			}
			out = append(out, s)
		}
	} else {
		byTool := map[string]*ToolStats{}
		durs := map[string][]float64{}
		for _, rec := range h.ex.History(executor.HistoryQuery{Tenant: tenant}) {
			if scoped && rec.Tenant != tenant {
				continue
			}
			s := byTool[rec.Tool]
			if s == nil {
				s = &ToolStats{Tool: rec.Tool, Source: "history"}
				byTool[rec.Tool] = s
			}
			s.Calls++
			if rec.Status != tool.StatusSucceeded {
				s.Failed++
			}
			durs[rec.Tool] = append(durs[rec.Tool], ms(rec.Duration))
		}
		for name, s := range byTool {
			d := durs[name]
			slices.Sort(d)
			var sum float64
			for _, x := range d {
				sum += x
			}
			s.MeanMS = sum / float64(len(d))
			s.P95MS = d[int(math.Ceil(0.95*float64(len(d))))-1]
			out = append(out, *s)
		}
	}
	for i := range out {
		if out[i].Calls > 0 {
			out[i].ErrorRate = float64(out[i].Failed) / float64(out[i].Calls)
		}
	}
	slices.SortFunc(out, func(a, b ToolStats) int { return strings.Compare(a.Tool, b.Tool) })
	writeJSON(w, http.StatusOK, out)
}

// quantile estimates the q-quantile in seconds from a bucketed histogram
// (the upper bound of the bucket where it falls; the last finite bound for
// the +Inf bucket).
func quantile(bounds []float64, counts []uint64, total uint64, q float64) float64 {
	if total == 0 || len(bounds) == 0 {
		return 0
	}
	want := uint64(math.Ceil(q * float64(total)))
	var run uint64
	for i, c := range counts {
		run += c
		if run >= want {
			if i < len(bounds) {
				return bounds[i]
			}
			break
		}
	}
	return bounds[len(bounds)-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// maskDeclared masks the fields the tool declares secret, and nothing
// else. The rule for logs (redact.Args) also masks keys that look like
// secrets and secrets found inside strings (NAME=value, a URL's password,
// a bearer credential); but the model chooses those keys and strings, and
// a person approving "X_TOKEN=[REDACTED] make" cannot see the command that
// runs. A secret path that does not compile masks everything (fail safe).
func maskDeclared(args json.RawMessage, secrets []string) json.RawMessage {
	r, err := redact.Compile(secrets, redact.WithKeyHeuristic(false))
	if err != nil {
		return json.RawMessage(`"` + redact.Mask + `"`)
	}
	return r.Redact(args)
}

// maskedSecret reports a field of modified arguments that still holds the
// mask in a place the page masks (the editor starts from the masked
// arguments), or "" when there is none. The mask elsewhere (in a file's
// content, say) is text like any other.
func maskedSecret(args json.RawMessage, secrets []string) string {
	masked := []byte(`"` + redact.Mask + `"`)
	if !bytes.Contains(args, masked) {
		return ""
	}
	var probe [12]byte
	_, _ = rand.Read(probe[:])
	sentinel := []byte(`"toolbelt-probe-` + hex.EncodeToString(probe[:]) + `"`)
	swapped := bytes.ReplaceAll(args, masked, sentinel)
	kept := maskDeclared(swapped, secrets)
	if bytes.Count(kept, sentinel) == bytes.Count(swapped, sentinel) {
		return ""
	}
	var before, after any
	if json.Unmarshal(swapped, &before) != nil || json.Unmarshal(kept, &after) != nil {
		return "a secret field"
	}
	if p := maskedPath(before, after, string(sentinel[1:len(sentinel)-1]), "args"); p != "" {
		return p
	}
	return "a secret field"
}

// maskedPath finds where before holds sentinel and after the mask.
func maskedPath(before, after any, sentinel, at string) string {
	switch b := before.(type) {
	case string:
		if a, ok := after.(string); ok && b == sentinel && a == redact.Mask {
			return at
		}
	case map[string]any:
		a, _ := after.(map[string]any)
		keys := make([]string, 0, len(b))
		for k := range b {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if p := maskedPath(b[k], a[k], sentinel, at+"."+k); p != "" {
				return p
			}
		}
	case []any:
		a, _ := after.([]any)
		for i := range b {
			if i < len(a) {
				if p := maskedPath(b[i], a[i], sentinel, fmt.Sprintf("%s[%d]", at, i)); p != "" {
					return p
				}
			}
		}
	}
	return ""
}
