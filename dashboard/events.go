package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/tool"
)

// maxChunk bounds the output of one event sent to the page (the page keeps
// the tail of each call's output), and the error text of an event or a
// history row.
const maxChunk = 8 << 10

// writeTimeout ends the stream of a browser that stops reading.
const writeTimeout = 10 * time.Second

// Event is one executor event as the page receives it.
type Event struct {
	// Seq numbers the executor's events; on a page limited to one tenant
	// (WithTenant), that page's own, whose gaps would count others'.
	Seq        uint64    `json:"seq"`
	Kind       string    `json:"kind"`
	Time       time.Time `json:"time"`
	CallID     string    `json:"call_id"`
	JobID      string    `json:"job_id,omitempty"`
	Tool       string    `json:"tool"`
	Agent      string    `json:"agent,omitempty"`
	Principal  string    `json:"principal,omitempty"`
	Tenant     string    `json:"tenant,omitempty"`
	Session    string    `json:"session,omitempty"`
	Provider   string    `json:"provider,omitempty"`
	Stream     string    `json:"stream,omitempty"`
	Data       string    `json:"data,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Decision   string    `json:"decision,omitempty"`
	Status     string    `json:"status,omitempty"`
	Code       string    `json:"code,omitempty"`
	Message    string    `json:"message,omitempty"`
	DurationMS float64   `json:"duration_ms,omitempty"`
	Attempt    int       `json:"attempt,omitempty"`
	// Missed is how many events this browser lost before this one because
	// it read too slowly.
	Missed uint64 `json:"missed,omitempty"`
}

func eventOf(ev *tool.Event) Event {
	out := Event{Seq: ev.Seq, Kind: string(ev.Kind), Time: ev.Time, CallID: ev.CallID, JobID: ev.JobID, Tool: ev.Tool,
		Agent: ev.Agent, Principal: ev.Principal, Tenant: ev.Tenant, Session: ev.Session, Provider: ev.Provider, Stream: ev.Stream, Decision: ev.Decision, Attempt: ev.Attempt, Missed: ev.Dropped}
	// A failed call's reason is its error's text, the message below: masked
	// and cut as that is, or it would give the page what the message hides.
	if ev.Reason != "" {
		out.Reason = tail(redact.String(ev.Reason))
	}
	if len(ev.Data) > 0 {
		d := textcut.Tail(ev.Data, maxChunk)
		out.Data = string(d)
		if !utf8.ValidString(out.Data) {
			out.Data = fmt.Sprintf("%q", d)
		}
	}
	if r := ev.Result; r != nil {
		out.Status = string(r.Status)
		out.DurationMS = ms(r.Timings.Total)
		if r.Error != nil {
			out.Code, out.Message = string(r.Error.Code), tail(redact.String(r.Error.Message))
		}
	}
	return out
}

// tail keeps the last maxChunk bytes of a message (an error's text is the
// tool's, so the model's to shape: a command's stderr), cut where a
// character starts, marked with "…". Redact before cutting: a cut secret
// may no longer look like one.
func tail(s string) string {
	if len(s) <= maxChunk {
		return s
	}
	return "…" + textcut.Tail(s, maxChunk)
}

// liveMask is how a call's output is masked as it streams: by the rule
// that masks its error text, 1-2 KiB behind (what redact.String must see
// after a secret's first bytes, a chunk may end inside it, and after its
// name, a YAML key on the line above), a line once it has ended.
var liveMask = redact.Stream{Mask: redact.String, Hold: 1 << 10, Lines: true}

// maxLiveHeld bounds the output held for one stream of a call while no cut
// is found (a key block that never ends): past it, what is held is sent
// masked as a whole, and the rest of the stream is not sent (darkNote).
const maxLiveHeld = 16 << 10

// maxLiveCalls bounds the streams whose output one page holds at once
// (with maxLiveHeld, a MiB); the one that had output least recently is
// sent what it holds, masked, to make room.
const maxLiveCalls = 64

// liveOutput is one stream of a call's output that a page has not been
// sent yet.
type liveOutput struct {
	ev   tool.Event // the stream's first output event, without its data
	held []byte
	dark bool // no cut was found within maxLiveHeld: the rest is not sent
}

// sameStream reports whether a and b are output of one stream of one call,
// named as the page names a call (call ids repeat across principals and
// sessions); with anyStream, of any of its streams.
func sameStream(a, b *tool.Event, anyStream bool) bool {
	return a.Tenant == b.Tenant && a.Principal == b.Principal && a.Session == b.Session && a.Agent == b.Agent &&
		a.JobID == b.JobID && a.CallID == b.CallID && (anyStream || a.Stream == b.Stream)
}

// add takes a chunk and returns the masked output that may be sent now
// (see redact.Stream).
func (o *liveOutput) add(chunk []byte) string {
	if o.dark {
		return ""
	}
	show, held := liveMask.Write(o.held, chunk)
	if o.held = held; len(held) > maxLiveHeld {
		// What follows would be masked without what came before it (the
		// key block's BEGIN line): the page is sent none of it.
		show, o.held, o.dark = show+liveMask.Flush(held)+"\n"+darkNote, nil, true
	}
	return show
}

// darkNote ends the output a page is sent of a stream that could not be
// masked as it streamed.
const darkNote = "[the rest of this output is not shown: it could not be masked as it streamed]\n"

// liveCalls holds, for one page, the output of the calls it follows.
type liveCalls []*liveOutput

// output returns the events to send for an output event: the masked text
// that may be sent now, if any, after what the stream least recently
// written to held, when this one makes too many.
func (lc *liveCalls) output(ev *tool.Event) []tool.Event {
	i := slices.IndexFunc(*lc, func(o *liveOutput) bool { return sameStream(&o.ev, ev, false) })
	var out []tool.Event
	if i < 0 {
		if len(*lc) == maxLiveCalls {
			out = lc.flush(0)
		}
		o := &liveOutput{ev: *ev}
		o.ev.Data, o.ev.Dropped = nil, 0
		*lc = append(*lc, o)
	} else if o := (*lc)[i]; i < len(*lc)-1 { // the least recently written to comes first
		*lc = append(slices.Delete(*lc, i, i+1), o)
	}
	if s := (*lc)[len(*lc)-1].add(ev.Data); s != "" {
		e := *ev
		e.Data = []byte(s)
		out = append(out, e)
	}
	return out
}

// end returns the output events of what a finished call's streams held.
func (lc *liveCalls) end(ev *tool.Event) []tool.Event {
	var out []tool.Event
	for i := 0; i < len(*lc); {
		if sameStream(&(*lc)[i].ev, ev, true) {
			out = append(out, lc.flush(i)...)
		} else {
			i++
		}
	}
	return out
}

// flush removes the i-th stream and returns an output event of what it
// held, masked.
func (lc *liveCalls) flush(i int) []tool.Event {
	o := (*lc)[i]
	*lc = slices.Delete(*lc, i, i+1)
	if len(o.held) == 0 {
		return nil
	}
	e := o.ev
	e.Data = []byte(liveMask.Flush(o.held))
	return []tool.Event{e}
}

// serveEvents streams the executor's events as Server-Sent Events. The
// executor never waits for the browser: events that find this browser's
// buffer full are dropped, and the next one says how many were missed.
func (h *Handler) serveEvents(w http.ResponseWriter, r *http.Request) {
	tenant, scoped := scope(r)
	// The stream ends when the browser goes, or when another tenant's
	// page takes its place (see WithMaxStreams).
	ctx, end := context.WithCancel(r.Context())
	defer end()
	release, ok := h.streams.take(tenant, end)
	if !ok {
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("dashboard: %d pages are open already (WithMaxStreams): close one, or retry", h.maxStrm), http.StatusServiceUnavailable)
		return
	}
	defer release()
	rc := http.NewResponseController(w)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("X-Accel-Buffering", "no")
	// A page limited to one tenant subscribes to its events only, the
	// empty tenant's included: it must not be told how many of another's
	// it missed.
	events, stop := h.ex.Subscribe(executor.EventFilter{Buffer: h.buffer, Tenant: tenant, TenantOnly: scoped})
	defer stop()
	var live liveCalls // the output not sent yet, to be masked
	var missed uint64  // events dropped, told with the next one sent
	var sent uint64    // events sent, a scoped page's sequence numbers
	var one [1]tool.Event

	send := func(chunk []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := w.Write(chunk); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send([]byte("retry: 2000\n: connected\n\n")) {
		return
	}
	heartbeat := time.NewTicker(h.heart)
	defer heartbeat.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-heartbeat.C:
			if !send([]byte(": ping\n\n")) {
				return
			}
		case ev, ok := <-events:
			if !ok {
				return
			}
			missed += ev.Dropped
			if scoped && ev.Tenant != tenant {
				continue
			}
			one[0] = ev
			out := one[:]
			switch ev.Kind {
			case tool.EventOutput: // masked as the call's error text is
				out = live.output(&ev)
			case tool.EventCompleted, tool.EventFailed, tool.EventCancelled:
				out = append(live.end(&ev), ev)
			}
			for _, e := range out {
				e.Dropped, missed = missed, 0
				if scoped {
					sent++
					e.Seq = sent
				}
				data, err := json.Marshal(eventOf(&e))
				if err != nil {
					continue
				}
				if !send(fmt.Appendf(nil, "id: %d\nevent: call\ndata: %s\n\n", e.Seq, data)) {
					return
				}
			}
		}
	}
}
