package mcpserver

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/tool"
)

// maxProgressMessage caps the message of a progress notification, an
// output chunk's text or a "progress" event's message, in bytes.
const maxProgressMessage = 4096

// progress turns a call's output events into progress notifications. The
// emitter never blocks (tool.Emitter's contract): notifications queue in a
// bounded channel drained by one goroutine, and are dropped when it is full.
type progress struct {
	ctx   context.Context
	ss    *mcp.ServerSession
	token any

	mu     sync.Mutex
	closed bool
	n      float64 // last progress value sent, kept increasing
	ch     chan *mcp.ProgressNotificationParams
	done   chan struct{}
}

func startProgress(ctx context.Context, ss *mcp.ServerSession, token any, buf int) *progress {
	p := &progress{ctx: ctx, ss: ss, token: token, ch: make(chan *mcp.ProgressNotificationParams, buf), done: make(chan struct{})}
	go p.run()
	return p
}

func (p *progress) run() {
	defer close(p.done)
	for n := range p.ch {
		// A failure (client gone, call cancelled) is not the tool's
		// problem; the remaining notifications are drained and dropped.
		_ = p.ss.NotifyProgress(p.ctx, n)
	}
}

// emit is the call's tool.Emitter. Output on the "progress" stream whose
// data is {"progress","total","message"} JSON is forwarded as is; any other
// output chunk (stdout, stderr, ...) becomes a notification whose message is
// the chunk and whose progress counts up.
func (p *progress) emit(ev tool.Event) {
	if ev.Kind != tool.EventOutput {
		return
	}
	n := &mcp.ProgressNotificationParams{ProgressToken: p.token}
	var pd struct {
		Progress *float64 `json:"progress"`
		Total    float64  `json:"total"`
		Message  string   `json:"message"`
	}
	structured := ev.Stream == "progress" && json.Unmarshal(ev.Data, &pd) == nil && pd.Progress != nil
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if structured {
		n.Progress, n.Total, n.Message = *pd.Progress, pd.Total, pd.Message
		n.Message = textcut.Head(n.Message, maxProgressMessage)
		if n.Progress > p.n {
			p.n = n.Progress
		}
	} else {
		p.n++
		n.Progress = p.n
		msg := textcut.Head(string(ev.Data), maxProgressMessage)
		if ev.Stream != "" && ev.Stream != "progress" {
			msg = ev.Stream + ": " + msg
		}
		n.Message = msg
	}
	select {
	case p.ch <- n:
	default: // full: drop rather than block the tool
	}
}

// stop flushes the queued notifications (so they precede the result) and
// ends the goroutine. Later events, from a backend still running after its
// deadline, are ignored.
func (p *progress) stop() {
	p.mu.Lock()
	p.closed = true
	close(p.ch)
	p.mu.Unlock()
	<-p.done
}
