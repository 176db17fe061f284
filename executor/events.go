package executor

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/tool"
)

// EventFilter selects the events a subscriber receives. Empty fields match
// everything.
type EventFilter struct {
	// Kinds, Tools and Agents each match when empty or when they contain
	// the event's value.
	Kinds  []tool.EventKind
	Tools  []string
	Agents []string
	// CallID and JobID, when set, match one call or one job.
	CallID string
	JobID  JobID
	// For and Tenant select events as JobFilter's select jobs. Call ids
	// repeat across principals: to follow one call, name its principal too.
	For    *tool.Principal
	Tenant string
	// TenantOnly makes Tenant select exactly that tenant's events, the
	// empty one included: a view for the principals of no tenant must not
	// count other tenants' events among those it dropped.
	TenantOnly bool
	// Buffer is the subscriber's channel capacity; zero means
	// DefaultEventBuffer. Events that find it full are dropped and counted.
	Buffer int
}

func (f *EventFilter) match(ev *tool.Event) bool {
	return (len(f.Kinds) == 0 || slices.Contains(f.Kinds, ev.Kind)) &&
		(len(f.Tools) == 0 || slices.Contains(f.Tools, ev.Tool)) &&
		(len(f.Agents) == 0 || slices.Contains(f.Agents, ev.Agent)) &&
		(f.CallID == "" || f.CallID == ev.CallID) &&
		(f.JobID == "" || string(f.JobID) == ev.JobID) &&
		actsFor(f.For, f.Tenant, ev.Principal, ev.Tenant) && (!f.TenantOnly || f.Tenant == ev.Tenant)
}

// hub fans events out to subscribers. Publishing never blocks: a full
// subscriber loses the event and learns how many it lost on the next one
// it receives.
type hub struct {
	n    atomic.Int32 // subscribers; read on every call, so kept apart
	mu   sync.Mutex
	seq  uint64
	subs []*subscriber
}

type subscriber struct {
	ch      chan tool.Event
	filter  EventFilter
	dropped uint64
}

func (h *hub) active() bool { return h.n.Load() > 0 }

// clipField holds a name or an id to MaxRecordFieldBytes, as History does.
func clipField(s string) string { return textcut.Clip(s, MaxRecordFieldBytes) }

// clipReason holds a Reason, which may quote a name or a lock key whole, to four such fields.
func clipReason(s string) string { return textcut.Clip(s, 4*MaxRecordFieldBytes) }

// publish numbers ev and offers it to every matching subscriber, under one
// lock so that each sees increasing numbers. Filters match names whole;
// subscribers get them cut, as History keeps them.
func (h *hub) publish(ev tool.Event) {
	if !h.active() {
		return
	}
	out := ev
	out.CallID, out.Tool, out.Agent, out.Session, out.Reason = clipField(ev.CallID), clipField(ev.Tool), clipField(ev.Agent), clipField(ev.Session), clipReason(ev.Reason)
	h.mu.Lock()
	h.seq++
	ev.Seq, out.Seq = h.seq, h.seq
	for _, s := range h.subs {
		if !s.filter.match(&ev) {
			continue
		}
		out.Dropped = s.dropped
		select {
		case s.ch <- out:
			s.dropped = 0
		default:
			s.dropped++
		}
	}
	h.mu.Unlock()
}

// Subscribe returns a channel of the events that match f, and a function
// that ends the subscription and closes the channel (safe to call more than
// once).
//
// Events are the life of every call made after Subscribe: submitted,
// queued (Reason says "lock: ..." or "limit: ..."), approval requested and
// decided (by the approval extension), started (once per attempt), output
// (tool.EmitOutput; a backend's events of other kinds are dropped, so no
// tool can say it was approved or completed), retried, and one of
// completed, failed or cancelled with the Result. Each carries the call's
// identity, time and a sequence number that increases across the executor;
// names and ids are cut to MaxRecordFieldBytes, a Reason to four times it.
//
// Delivery never blocks a call: when the channel is full the event is
// dropped, and the next event the subscriber receives reports in Dropped
// how many it lost. Read promptly, or give a larger Buffer. The Result in
// an event is the caller's result: treat it as read-only.
func (e *Executor) Subscribe(f EventFilter) (<-chan tool.Event, func()) {
	size := DefaultEventBuffer
	setPositive(&size, f.Buffer)
	f.Kinds = slices.Clone(f.Kinds)
	f.Tools = slices.Clone(f.Tools)
	f.Agents = slices.Clone(f.Agents)
	s := &subscriber{ch: make(chan tool.Event, size), filter: f}
	h := &e.hub
	h.mu.Lock()
	h.subs = append(h.subs, s)
	h.n.Add(1)
	h.mu.Unlock()
	return s.ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if i := slices.Index(h.subs, s); i >= 0 { // not already ended
			h.subs = slices.Delete(h.subs, i, i+1)
			h.n.Add(-1)
			close(s.ch)
		}
	}
}
