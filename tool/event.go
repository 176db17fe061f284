package tool

import (
	"context"
	"time"
)

// EventKind names what happened to a call.
type EventKind string

// The kinds of events the executor, its extensions and backends emit.
const (
	EventSubmitted         EventKind = "submitted"
	EventQueued            EventKind = "queued"
	EventApprovalRequested EventKind = "approval_requested"
	EventApprovalDecided   EventKind = "approval_decided"
	EventStarted           EventKind = "started"
	EventOutput            EventKind = "output"
	EventRetried           EventKind = "retried"
	EventCompleted         EventKind = "completed"
	EventFailed            EventKind = "failed"
	EventCancelled         EventKind = "cancelled"
)

// Event is one step in a call's life. The executor fills the identifying
// fields (CallID, JobID, Tool, Agent, Principal, Tenant, Session,
// Provider, Time, Seq); emitters set the rest.
type Event struct {
	Kind   EventKind `json:"kind"`
	Seq    uint64    `json:"seq"`
	Time   time.Time `json:"time"`
	CallID string    `json:"call_id"`
	JobID  string    `json:"job_id,omitempty"`
	Tool   string    `json:"tool"`
	Agent  string    `json:"agent,omitempty"`
	// Principal and Tenant are the ID and tenant of the principal the call
	// was submitted for (Call.Principal); ids are per tenant. Session is
	// the call's Call.Session.
	Principal string `json:"principal,omitempty"`
	Tenant    string `json:"tenant,omitempty"`
	Session   string `json:"session,omitempty"`
	// Provider is the call's tool.Call.Provider.
	Provider string `json:"provider,omitempty"`
	// Stream ("stdout", "stderr", "body", "progress") and Data carry an
	// output chunk.
	Stream string `json:"stream,omitempty"`
	Data   []byte `json:"data,omitempty"`
	// Reason explains a queued, retried or approval event.
	Reason string `json:"reason,omitempty"`
	// Decision is "approve", "deny" or "modify" on approval_decided.
	Decision string `json:"decision,omitempty"`
	// DecidedBy is who decided, on approval_decided.
	DecidedBy string `json:"decided_by,omitempty"`
	// Error, on approval_decided, says the approver failed (the call is
	// then denied): why.
	Error string `json:"error,omitempty"`
	// Latency is how long the approval took, or the retry backoff.
	Latency time.Duration `json:"latency,omitempty"`
	// Attempt is the attempt number on retried.
	Attempt int `json:"attempt,omitempty"`
	// Result is set on completed, failed and cancelled.
	Result *Result `json:"result,omitempty"`
	// Dropped is how many events this subscriber lost before this one
	// because it read too slowly.
	Dropped uint64 `json:"dropped,omitempty"`
}

// Emitter receives events. It must not block.
type Emitter func(Event)

type emitterKey struct{}

// WithEmitter returns a context whose Emit calls go to fn. The executor
// installs one per call; backends and extensions just call Emit.
func WithEmitter(ctx context.Context, fn Emitter) context.Context {
	return context.WithValue(ctx, emitterKey{}, fn)
}

// EmitterFrom returns the emitter installed in ctx, or nil. An executor
// that installs its own emitter forwards to the one it found, so emitters
// chain instead of hiding each other.
func EmitterFrom(ctx context.Context) Emitter {
	fn, _ := ctx.Value(emitterKey{}).(Emitter)
	return fn
}

// Emit sends ev to the emitter in ctx, if any. It never blocks.
func Emit(ctx context.Context, ev Event) {
	if fn, ok := ctx.Value(emitterKey{}).(Emitter); ok && fn != nil {
		fn(ev)
	}
}

// EmitOutput emits an output chunk on stream. The chunk is copied, so the
// caller may reuse its buffer.
func EmitOutput(ctx context.Context, stream string, chunk []byte) {
	if fn, ok := ctx.Value(emitterKey{}).(Emitter); ok && fn != nil {
		fn(Event{Kind: EventOutput, Stream: stream, Data: append([]byte(nil), chunk...)})
	}
}
