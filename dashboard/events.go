package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
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

// serveEvents streams the executor's events as Server-Sent Events. The
// executor never waits for the browser: events that find this browser's
// buffer full are dropped, and the next one says how many were missed.
func (h *Handler) serveEvents(w http.ResponseWriter, r *http.Request) {
	select {
	case h.streams <- struct{}{}:
		defer func() { <-h.streams }()
	default:
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("dashboard: %d pages are open already (WithMaxStreams): close one, or retry", cap(h.streams)), http.StatusServiceUnavailable)
		return
	}
	rc := http.NewResponseController(w)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("X-Accel-Buffering", "no")
	// A page limited to one tenant subscribes to its events only (an
	// empty Tenant selects every tenant's, so the loop checks too).
	tenant, scoped := scope(r)
	events, stop := h.ex.Subscribe(executor.EventFilter{Buffer: h.buffer, Tenant: tenant})
	defer stop()

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
		case <-r.Context().Done():
			return
		case <-heartbeat.C:
			if !send([]byte(": ping\n\n")) {
				return
			}
		case ev, ok := <-events:
			if !ok {
				return
			}
			if scoped && ev.Tenant != tenant {
				continue
			}
			data, err := json.Marshal(eventOf(&ev))
			if err != nil {
				continue
			}
			if !send(fmt.Appendf(nil, "id: %d\nevent: call\ndata: %s\n\n", ev.Seq, data)) {
				return
			}
		}
	}
}
