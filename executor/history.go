package executor

import (
	"sync"
	"time"

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
	Status  tool.Status
	// Code and Message are the error's, empty on success.
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
	Tool   string
	Agent  string
	Status tool.Status
	// Since and Until bound StartedAt: Since inclusive, Until exclusive.
	Since, Until time.Time
	// Limit, when positive, keeps only the newest Limit matches.
	Limit int
}

func (q *HistoryQuery) match(r *Record) bool {
	return (q.Tool == "" || q.Tool == r.Tool) &&
		(q.Agent == "" || q.Agent == r.Agent) &&
		(q.Status == "" || q.Status == r.Status) &&
		(q.Since.IsZero() || !r.StartedAt.Before(q.Since)) &&
		(q.Until.IsZero() || r.StartedAt.Before(q.Until))
}

// history is a ring of the last records under one mutex.
type history struct {
	mu    sync.Mutex
	total uint64   // records ever added; the last one's Seq
	ring  []Record // record Seq lives at (Seq-1) % len(ring)
}

func newHistory(n int) *history { return &history{ring: make([]Record, n)} }

// add records the summary of a finished call.
func (h *history) add(id *ident, cs *callState, res *tool.Result) {
	r := Record{
		CallID: id.id, Tool: id.name, Agent: id.agent, Session: id.session, JobID: cs.jobID(),
		Status: res.Status, StartedAt: res.StartedAt, Duration: res.Timings.Total, Attempts: res.Attempts,
	}
	if res.Error != nil {
		r.Code, r.Message = res.Error.Code, res.Error.Message
	}
	h.mu.Lock()
	h.total++
	r.Seq = h.total
	h.ring[(r.Seq-1)%uint64(len(h.ring))] = r
	h.mu.Unlock()
}

// History returns the records of the last finished calls (at most the
// WithHistory size) that match q, oldest first; with q.Limit, the newest
// Limit of them. It returns nil when history is disabled.
func (e *Executor) History(q HistoryQuery) []Record {
	h := e.hist
	if h == nil {
		return nil
	}
	h.mu.Lock()
	n := min(h.total, uint64(len(h.ring)))
	all := make([]Record, 0, n)
	for seq := h.total - n + 1; seq <= h.total; seq++ {
		all = append(all, h.ring[(seq-1)%uint64(len(h.ring))])
	}
	h.mu.Unlock()
	out := all[:0]
	for i := range all {
		if q.match(&all[i]) {
			out = append(out, all[i])
		}
	}
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[len(out)-q.Limit:]
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
