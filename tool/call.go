package tool

import (
	"context"
	"encoding/json"
	"slices"
	"time"
)

// Principal is who a call acts for. An empty ID means anonymous.
type Principal struct {
	ID     string   `json:"id,omitempty"`
	Roles  []string `json:"roles,omitempty"`
	Tenant string   `json:"tenant,omitempty"`
}

// HasRole reports whether p holds role.
func (p Principal) HasRole(role string) bool {
	for _, r := range p.Roles {
		if r == role {
			return true
		}
	}
	return false
}

type principalKey struct{}

// WithPrincipal returns a context carrying p. The executor copies it into a
// call whose Principal is empty, so a server can authenticate once per
// request and every call made under that context acts for p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// ActingFor returns ctx carrying p as the principal that work done under
// it acts for (PrincipalFrom reads it): how the executor runs a call's
// backend, and a Go function tool its function, so that calls made with
// that context act for the call's principal, never for one the caller's
// context carries (a host's admin running a call for a user, a job's
// worker), nor for anybody when p is nobody. An anonymous p (no ID) holds
// no roles, as the auth extension judges it. ctx is returned as it is when
// it already carries p, or carries no one and p is no one.
func ActingFor(ctx context.Context, p Principal) context.Context {
	if p.ID == "" {
		p.Roles = nil
	}
	had, ok := PrincipalFrom(ctx)
	if !ok && p.ID == "" && p.Tenant == "" {
		return ctx
	}
	if ok && had.ID == p.ID && had.Tenant == p.Tenant && slices.Equal(had.Roles, p.Roles) {
		return ctx
	}
	return WithPrincipal(ctx, p)
}

// PrincipalFrom returns the principal carried by ctx, if any: false for
// none, and for the zero Principal (nobody). Inside a Go function tool
// (Func), it is the principal of the call being run, and false for an
// anonymous call, whatever principal the caller's context carried.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	if p.ID == "" && p.Tenant == "" && len(p.Roles) == 0 {
		return Principal{}, false
	}
	return p, ok
}

// Call is one request to run a tool: what the model asked for plus who asked.
// It is plain data: it can be logged, queued and serialised.
type Call struct {
	// ID identifies the call; providers supply one (tool_call_id, call_id).
	ID string `json:"id"`
	// Name is the tool to run.
	Name string `json:"name"`
	// Args is the JSON object of arguments.
	Args json.RawMessage `json:"args,omitempty"`
	// Principal is who the call acts for.
	Principal Principal `json:"principal,omitzero"`
	// Agent names the agent that made the call (for per-agent limits and views).
	Agent string `json:"agent,omitempty"`
	// Provider names where the call came from: the model provider whose
	// turn asked for it ("openai", "anthropic", "gemini", a local model),
	// or "mcp" for an MCP client. Views group live calls by it.
	Provider string `json:"provider,omitempty"`
	// Session groups calls of one conversation (approval scopes use it).
	Session string `json:"session,omitempty"`
	// TraceID and SpanID correlate the call with the caller's trace.
	TraceID string `json:"trace_id,omitempty"`
	SpanID  string `json:"span_id,omitempty"`
	// Mode is the operating mode the caller believes it is in; the policy
	// extension's current mode wins when it is set.
	Mode string `json:"mode,omitempty"`
	// Timeout overrides the spec's and the executor's default deadline for
	// one run of the backend.
	Timeout time.Duration `json:"timeout,omitempty"`
}

// Status is how a call ended.
type Status string

// The statuses of a finished call.
const (
	StatusSucceeded Status = "succeeded"
	StatusFailed    Status = "failed"
	StatusDenied    Status = "denied"
	StatusTimedOut  Status = "timed_out"
	StatusCancelled Status = "cancelled"
)
