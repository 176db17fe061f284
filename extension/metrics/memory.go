package metrics

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolbelt-go/toolbelt/tool"
)

// Buckets are the fixed upper bounds of the latency histogram, in seconds.
// The last bucket (+Inf) is implicit. Read it; changing it after start-up
// does not change the recorder.
var Buckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

var bucketSeconds = append([]float64(nil), Buckets...)

var bucketBounds = func() []time.Duration {
	d := make([]time.Duration, len(bucketSeconds))
	for i, s := range bucketSeconds {
		d[i] = time.Duration(s * float64(time.Second))
	}
	return d
}()

var statuses = []tool.Status{tool.StatusSucceeded, tool.StatusFailed, tool.StatusDenied, tool.StatusTimedOut, tool.StatusCancelled}

var decisions = []string{DecisionApprove, DecisionDeny, DecisionModify}

// toolStats holds one tool's counters. Every field is an atomic, so
// recording takes no lock; the sync.Map lookup is lock-free once the tool
// has been seen.
type toolStats struct {
	inFlight    atomic.Int64
	byStatus    [6]atomic.Uint64 // statuses, then "other"
	byCode      []atomic.Uint64  // tool.Codes, then "other"
	buckets     []atomic.Uint64  // Buckets, then +Inf
	count       atomic.Uint64
	sumNanos    atomic.Int64
	approvals   [4]atomic.Uint64 // decisions, then "other"
	rateLimited atomic.Uint64
}

// Memory is an in-memory Recorder. Recording is lock-free (atomics per
// tool); Snapshot copies the current values. The zero value is not usable;
// call NewMemory.
type Memory struct {
	tools sync.Map // string → *toolStats
}

// NewMemory returns an empty in-memory recorder.
func NewMemory() *Memory { return &Memory{} }

func (m *Memory) stats(name string) *toolStats {
	if s, ok := m.tools.Load(name); ok {
		return s.(*toolStats)
	}
	s, _ := m.tools.LoadOrStore(name, &toolStats{
		byCode:  make([]atomic.Uint64, len(tool.Codes)+1),
		buckets: make([]atomic.Uint64, len(bucketBounds)+1),
	})
	return s.(*toolStats)
}

// Start implements Recorder.
func (m *Memory) Start(toolName string) { m.stats(toolName).inFlight.Add(1) }

// Finish implements Recorder.
func (m *Memory) Finish(o Observation) { m.finish(m.stats(o.Tool), o) }

// finish records o in s, the stats of o.Tool (looked up once per call by
// the extension).
func (m *Memory) finish(s *toolStats, o Observation) {
	s.inFlight.Add(-1)
	s.byStatus[statusIndex(o.Status)].Add(1)
	if o.Code != "" {
		s.byCode[codeIndex(o.Code)].Add(1)
	}
	i := sort.Search(len(bucketBounds), func(i int) bool { return o.Duration <= bucketBounds[i] })
	s.buckets[i].Add(1)
	s.count.Add(1)
	s.sumNanos.Add(int64(o.Duration))
	if o.Approval != "" {
		s.approvals[decisionIndex(o.Approval)].Add(1)
	}
	if o.RateLimited {
		s.rateLimited.Add(1)
	}
}

func statusIndex(st tool.Status) int {
	for i, s := range statuses {
		if s == st {
			return i
		}
	}
	return len(statuses)
}

func codeIndex(c tool.Code) int {
	for i, k := range tool.Codes {
		if k == c {
			return i
		}
	}
	return len(tool.Codes)
}

func decisionIndex(d string) int {
	for i, k := range decisions {
		if k == d {
			return i
		}
	}
	return len(decisions)
}

// Other is the label under which statuses, codes and decisions outside the
// known sets are counted.
const Other = "other"

// Histogram is a latency distribution.
type Histogram struct {
	// Bounds are the buckets' upper bounds in seconds (Buckets); Counts has
	// one more entry than Bounds, the last for +Inf. Counts are per bucket,
	// not cumulative.
	Bounds []float64
	Counts []uint64
	// Count and Sum are the number of observations and their total.
	Count uint64
	Sum   time.Duration
}

// Cumulative returns Counts as running totals (Prometheus-style).
func (h Histogram) Cumulative() []uint64 {
	out := make([]uint64, len(h.Counts))
	var run uint64
	for i, c := range h.Counts {
		run += c
		out[i] = run
	}
	return out
}

// ToolSnapshot is one tool's values at snapshot time.
type ToolSnapshot struct {
	// Calls counts finished calls by status.
	Calls map[tool.Status]uint64
	// Errors counts failed calls by error code.
	Errors map[tool.Code]uint64
	// InFlight is how many calls are running now.
	InFlight int64
	// Latency is the distribution of call durations.
	Latency Histogram
	// Approvals counts approval decisions ("approve", "deny", "modify").
	Approvals map[string]uint64
	// RateLimited counts calls refused by a rate limit.
	RateLimited uint64
}

// Total is the number of finished calls.
func (t ToolSnapshot) Total() uint64 {
	var n uint64
	for _, v := range t.Calls {
		n += v
	}
	return n
}

// Snapshot is the recorder's values at one moment, by tool. Counters are
// read one by one without a global lock, so a snapshot taken while calls
// finish may be a few calls apart between fields (never torn within one).
type Snapshot struct {
	Tools map[string]ToolSnapshot
}

// InFlight is the number of calls running, over all tools.
func (s Snapshot) InFlight() int64 {
	var n int64
	for _, t := range s.Tools {
		n += t.InFlight
	}
	return n
}

// Calls is the number of finished calls of toolName with status.
func (s Snapshot) Calls(toolName string, status tool.Status) uint64 {
	return s.Tools[toolName].Calls[status]
}

// Snapshot copies the current values.
func (m *Memory) Snapshot() Snapshot {
	snap := Snapshot{Tools: map[string]ToolSnapshot{}}
	m.tools.Range(func(k, v any) bool {
		s := v.(*toolStats)
		t := ToolSnapshot{
			Calls:       map[tool.Status]uint64{},
			Errors:      map[tool.Code]uint64{},
			Approvals:   map[string]uint64{},
			InFlight:    s.inFlight.Load(),
			RateLimited: s.rateLimited.Load(),
		}
		for i := range s.byStatus {
			if n := s.byStatus[i].Load(); n > 0 {
				st := tool.Status(Other)
				if i < len(statuses) {
					st = statuses[i]
				}
				t.Calls[st] = n
			}
		}
		for i := range s.byCode {
			if n := s.byCode[i].Load(); n > 0 {
				c := tool.Code(Other)
				if i < len(tool.Codes) {
					c = tool.Codes[i]
				}
				t.Errors[c] = n
			}
		}
		for i := range s.approvals {
			if n := s.approvals[i].Load(); n > 0 {
				d := Other
				if i < len(decisions) {
					d = decisions[i]
				}
				t.Approvals[d] = n
			}
		}
		t.Latency = Histogram{Bounds: append([]float64(nil), bucketSeconds...), Counts: make([]uint64, len(s.buckets)), Count: s.count.Load(), Sum: time.Duration(s.sumNanos.Load())}
		for i := range s.buckets {
			t.Latency.Counts[i] = s.buckets[i].Load()
		}
		snap.Tools[k.(string)] = t
		return true
	})
	return snap
}
