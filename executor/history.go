package executor

import (
	"sync"
	"sync/atomic"
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

// history is a ring of the last records. Calls finishing at once on
// different cores do not share a lock: each takes its sequence number from
// an atomic counter and writes its own slot under that slot's lock, so
// ExecuteBatch's workers meet only on the counter.
type history struct {
	total atomic.Uint64 // records ever added; the last one's Seq
	slots []histSlot
}

// histSlot holds the record whose Seq is congruent to the slot's index;
// Seq 0 marks it empty.
type histSlot struct {
	mu  sync.Mutex
	rec Record
}

func newHistory(n int) *history { return &history{slots: make([]histSlot, n)} }

// add writes the call's summary into its slot: no allocation, and no
// record built aside to be copied in.
func (h *history) add(id *ident, cs *callState, res *tool.Result) {
	seq := h.total.Add(1)
	s := h.slot(seq)
	s.mu.Lock()
	// A writer that lost the race around the whole ring leaves the newer
	// record in place.
	if s.rec.Seq < seq {
		r := &s.rec
		r.Seq, r.CallID, r.Tool, r.Agent, r.Session = seq, id.id, id.name, id.agent, id.session
		r.JobID = ""
		if cs != nil {
			r.JobID = cs.jobID()
		}
		r.Status, r.StartedAt, r.Duration, r.Attempts = res.Status, res.StartedAt, res.Timings.Total, res.Attempts
		r.Code, r.Message = "", ""
		if res.Error != nil {
			r.Code, r.Message = res.Error.Code, res.Error.Message
		}
	}
	s.mu.Unlock()
}

func (h *history) slot(seq uint64) *histSlot {
	return &h.slots[(seq-1)%uint64(len(h.slots))]
}

// each calls fn with a copy of every record held, newest first when
// reverse, until fn returns false. It sees the records numbered up to the
// counter when it starts; a record still being written, or already
// overwritten by a newer one, is skipped.
func (h *history) each(reverse bool, fn func(*Record) bool) {
	last := h.total.Load()
	first := uint64(1)
	if n := uint64(len(h.slots)); last > n {
		first = last - n + 1
	}
	seq, end, step := first, last+1, uint64(1)
	if reverse {
		seq, end, step = last, first-1, ^uint64(0) // step -1
	}
	var rec Record
	for ; seq != end; seq += step {
		s := h.slot(seq)
		s.mu.Lock()
		ok := s.rec.Seq == seq
		if ok {
			rec = s.rec
		}
		s.mu.Unlock()
		if ok && !fn(&rec) {
			return
		}
	}
}

// History returns the records of the last finished calls (at most the
// WithHistory size) that match q, oldest first. It returns nil when history
// is disabled.
//
// It never stops calls from finishing: it reads the ring slot by slot
// while they go on writing it. A call that finishes while History runs
// may be left out (its record is not written yet) or, in a full ring,
// take the place of an old record that is then left out too; records
// come back in Seq order and are never torn.
func (e *Executor) History(q HistoryQuery) []Record {
	h := e.hist
	if h == nil {
		return nil
	}
	var out []Record
	if q.Limit > 0 {
		h.each(true, func(r *Record) bool {
			if q.match(r) {
				out = append(out, *r)
			}
			return len(out) < q.Limit
		})
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		return out
	}
	h.each(false, func(r *Record) bool {
		if q.match(r) {
			out = append(out, *r)
		}
		return true
	})
	return out
}
