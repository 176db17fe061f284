package executor

import (
	"context"
	"sync"
	"time"

	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Record is the summary History keeps of one finished call. It holds no
// reference to the call's result, arguments or output, so keeping
// thousands costs a fixed, small amount of memory.
type Record struct {
	// Seq numbers records in the order calls finished, from 1.
	Seq     uint64
	CallID  string
	JobID   JobID
	Tool    string
	Agent   string
	Session string
	// Principal and Tenant are the ID and tenant of the principal the call
	// was submitted for (tool.Call.Principal, or its context's); ids are
	// per tenant. An extension that runs the call as another (a token
	// exchange) does not change them: the audit trail records that.
	Principal string
	Tenant    string
	Status    tool.Status
	// Code and Message are the error's, empty on success. Message is
	// redacted as the log and the audit trail redact it (the one rule, and
	// the values of the arguments the tool declares secret), and held to
	// MaxRecordMessageBytes, head and tail.
	Code    tool.Code
	Message string
	// StartedAt is when the call started; Duration its total time.
	StartedAt time.Time
	Duration  time.Duration
	Attempts  int
}

// CompletedAt is when the call finished.
func (r Record) CompletedAt() time.Time { return r.StartedAt.Add(r.Duration) }

// HistoryQuery selects records. Empty fields match everything.
type HistoryQuery struct {
	Tool  string
	Agent string
	// For and Tenant select records as JobFilter's select jobs.
	For    *tool.Principal
	Tenant string
	Status tool.Status
	// Since and Until bound StartedAt: Since inclusive, Until exclusive.
	Since, Until time.Time
	// Limit, when positive, keeps only the newest Limit matches.
	Limit int
}

// Match reports whether q selects r (Limit aside): the rule a
// HistoryStore applies.
func (q *HistoryQuery) Match(r *Record) bool {
	return (q.Tool == "" || q.Tool == r.Tool) &&
		(q.Agent == "" || q.Agent == r.Agent) &&
		actsFor(q.For, q.Tenant, r.Principal, r.Tenant) &&
		(q.Status == "" || q.Status == r.Status) &&
		(q.Since.IsZero() || !r.StartedAt.Before(q.Since)) &&
		(q.Until.IsZero() || r.StartedAt.Before(q.Until))
}

// actsFor is the rule of the For and Tenant of a filter (HistoryQuery,
// JobFilter, EventFilter) for a record of principal id of tenant.
func actsFor(p *tool.Principal, tenant, id, gotTenant string) bool {
	return (p == nil || p.ID == id && p.Tenant == gotTenant) && (tenant == "" || tenant == gotTenant)
}

// HistoryStore keeps the records History returns. Without
// WithHistoryStore an executor keeps the last WithHistory records in a ring
// in memory; a shared store (backend/postgres) keeps the records of every
// instance, so that History on any of them sees the calls of all.
type HistoryStore interface {
	// Add keeps the record of one finished call, numbering it (r.Seq is
	// zero). The call's result waits for Add, so a store bounds its wait,
	// and drops a record it cannot keep (the audit trail is the record that
	// must not be lost). ctx carries the call's values, never cancelled.
	Add(ctx context.Context, r Record)
	// Query returns the records that match q, oldest first; with q.Limit,
	// the newest Limit of them. A store may bound how many it returns
	// without q.Limit (the ring: its size), and says so in its doc.
	Query(ctx context.Context, q HistoryQuery) ([]Record, error)
}

// ring is the in-memory HistoryStore, the default: the last records under
// one mutex.
type ring struct {
	mu    sync.Mutex
	total uint64   // records ever added; the last one's Seq
	ring  []Record // record Seq lives at (Seq-1) % len(ring)
}

// Add implements HistoryStore.
func (h *ring) Add(_ context.Context, r Record) {
	h.mu.Lock()
	h.total++
	r.Seq = h.total
	h.ring[(r.Seq-1)%uint64(len(h.ring))] = r
	h.mu.Unlock()
}

// Query implements HistoryStore: it looks at the last records the ring
// holds (at most its size).
func (h *ring) Query(ctx context.Context, q HistoryQuery) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Record
	for seq := h.total - min(h.total, uint64(len(h.ring))) + 1; seq <= h.total; seq++ {
		if r := &h.ring[(seq-1)%uint64(len(h.ring))]; q.Match(r) {
			out = append(out, *r)
		}
	}
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[len(out)-q.Limit:]
	}
	return out, nil
}

// MaxRecordFieldBytes bounds each name and id a Record keeps (CallID,
// Tool, Agent, Session), which are a model's or a client's text of any
// length. A longer one keeps its first MaxRecordFieldBytes (whole
// characters) and says how many bytes were cut.
const MaxRecordFieldBytes = 1 << 10

// MaxRecordMessageBytes bounds a Record's Message, which otherwise only the
// output cap holds. A longer one keeps head and tail around a marker.
const MaxRecordMessageBytes = 8 << 10

// addHistory records the summary of a finished call, when history is on.
func (e *Executor) addHistory(ctx context.Context, cs *callState, res *tool.Result) {
	if e.hist == nil {
		return
	}
	c := &cs.call
	r := Record{
		CallID: clipField(c.ID), Tool: clipField(c.Name), Agent: clipField(c.Agent), Session: clipField(c.Session),
		JobID: c.JobID, Principal: c.Principal, Tenant: c.Tenant,
		Status: res.Status, StartedAt: res.StartedAt, Duration: res.Timings.Total, Attempts: res.Attempts,
	}
	if res.Error != nil {
		// Redacted as the log and the audit trail redact it: a store keeps
		// it, often in a shared database. Cut after, to head and tail (an
		// error's last line often says most), with no piece of a secret at
		// a cut.
		var secrets []string
		if cs.entry != nil {
			secrets = cs.entry.Spec.Secrets
		}
		r.Code = res.Error.Code
		r.Message = redact.HeadTail(res.Error.Message, MaxRecordMessageBytes, secrets, cs.req.Call.Args)
	}
	e.hist.Add(context.WithoutCancel(ctx), r) // a cancelled call is recorded too
}

// History returns the records of the last finished calls that match q,
// oldest first; with q.Limit, the newest Limit of them. In memory (the
// default) it looks at the last WithHistory calls of this executor; with
// WithHistoryStore, at what the store keeps. It returns nil when history
// is disabled, and when the store fails: HistoryContext says why.
func (e *Executor) History(q HistoryQuery) []Record {
	out, _ := e.HistoryContext(context.Background(), q)
	return out
}

// HistoryContext is History asking the store under ctx: a ctx that ends
// first, or a store that fails, gives an error. A Tool or Agent filter is
// cut as the records' are, so that it finds the name as called.
func (e *Executor) HistoryContext(ctx context.Context, q HistoryQuery) ([]Record, error) {
	if e.hist == nil {
		return nil, nil
	}
	q.Tool, q.Agent = clipField(q.Tool), clipField(q.Agent)
	return e.hist.Query(ctx, q)
}
