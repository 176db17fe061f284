package executor

import (
	"sync"
	"time"

	"github.com/toolbelt-go/toolbelt/internal/ring"
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

type history struct {
	mu sync.Mutex
	r  *ring.Ring[Record]
}

func newHistory(n int) *history { return &history{r: ring.New[Record](n)} }

// add copies the call's summary into the ring: no allocation.
func (h *history) add(call *tool.Call, cs *callState, res *tool.Result) {
	rec := Record{
		CallID: call.ID, Tool: call.Name, Agent: call.Agent, Session: call.Session,
		Status: res.Status, StartedAt: res.StartedAt, Duration: res.Timings.Total, Attempts: res.Attempts,
	}
	if cs != nil {
		rec.JobID = cs.jobID
	}
	if res.Error != nil {
		rec.Code, rec.Message = res.Error.Code, res.Error.Message
	}
	h.mu.Lock()
	rec.Seq = h.r.Total() + 1
	h.r.Push(rec)
	h.mu.Unlock()
}

// History returns the records of the last finished calls (at most the
// WithHistory size) that match q, oldest first. It returns nil when history
// is disabled.
func (e *Executor) History(q HistoryQuery) []Record {
	h := e.hist
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Record
	if q.Limit > 0 {
		h.r.Reverse(func(r *Record) bool {
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
	h.r.Do(func(r *Record) bool {
		if q.match(r) {
			out = append(out, *r)
		}
		return true
	})
	return out
}
