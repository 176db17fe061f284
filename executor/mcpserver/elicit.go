package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/toolbelt/approval"
)

// newProtocol is the first protocol revision in which a server may not send
// requests to the client during a call: elicitation travels as input
// requests in the call's result instead (SEP-2322 multi round-trip).
const newProtocol = "2026-07-28"

type roundKey struct{}

// round is one invocation of a tools/call handler: the input responses the
// client sent with it, and the input requests the approver needs answered.
type round struct {
	session   *mcp.ServerSession
	responses mcp.InputResponseMap
	wait      time.Duration // bound of a direct elicitation (WithElicitTimeout); <= 0: none

	mu      sync.Mutex
	pending mcp.InputRequestMap
}

func (r *round) pendingRequests() mcp.InputRequestMap {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pending
}

func (r *round) ask(id string, p *mcp.ElicitParams) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending == nil {
		r.pending = mcp.InputRequestMap{}
	}
	r.pending[id] = p
}

// ErrInputRequired is the error Elicit returns when the client speaks the
// multi round-trip protocol: the question goes back to the client in the
// call's result, and the client calls again with the answer, at which point
// the whole pipeline runs again and Elicit returns the answer.
var ErrInputRequired = errors.New("mcpserver: the client must answer an elicitation first; the call is re-run with the answer")

// ErrNoElicitation is matched (errors.Is) when the human cannot be asked:
// the context is not a call served by this package, the client did not
// declare the elicitation capability, or the transport has no way back to
// the client (stateless HTTP with an older protocol revision).
var ErrNoElicitation = errors.New("mcpserver: elicitation is not available")

// ErrNoAnswer is matched (errors.Is) when a client asked directly (a
// protocol revision before 2026-07-28) did not answer within the server's
// WithElicitTimeout. Approver denies the call then.
var ErrNoAnswer = errors.New("mcpserver: the client did not answer the elicitation in time")

// Elicit asks the human at the MCP client of the call served under ctx.
// id names the question; it must be the same when the call is re-run with
// the same arguments (for clients of protocol 2026-07-28 and later, which
// answer through the call's result and a second call; see ErrInputRequired).
// Older clients are asked directly, while the call waits, for at most the
// server's WithElicitTimeout (then ErrNoAnswer).
func Elicit(ctx context.Context, id string, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	rd, _ := ctx.Value(roundKey{}).(*round)
	if rd == nil || rd.session == nil {
		return nil, fmt.Errorf("%w: the call was not made through an MCP client", ErrNoElicitation)
	}
	if r, ok := rd.responses[id]; ok {
		er, ok := r.(*mcp.ElicitResult)
		if !ok {
			return nil, fmt.Errorf("mcpserver: the client answered input request %q with %T, not an elicitation result", id, r)
		}
		return er, nil
	}
	ip := rd.session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return nil, fmt.Errorf("%w: the client did not declare the elicitation capability", ErrNoElicitation)
	}
	if ip.ProtocolVersion >= newProtocol {
		rd.ask(id, params)
		return nil, ErrInputRequired
	}
	ectx := ctx
	if rd.wait > 0 {
		var cancel context.CancelFunc
		ectx, cancel = context.WithTimeout(ctx, rd.wait)
		defer cancel()
	}
	res, err := rd.session.Elicit(ectx, params)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if ectx.Err() != nil {
			return nil, fmt.Errorf("%w: the client did not answer within %v", ErrNoAnswer, rd.wait)
		}
		return nil, fmt.Errorf("%w: %v", ErrNoElicitation, err)
	}
	return res, nil
}

// Approver is an approval.Approver that asks the human at the MCP client,
// through elicitation, whether a call may run. Plug it into the approval
// extension (alone, or first in approval.FirstDecisive with a fallback):
//
//	approval.FirstDecisive(mcpserver.Approver{}, queue)
//
// When the human cannot be asked (ErrNoElicitation) it abstains, so a
// FirstDecisive chain asks the next approver and anywhere else the call is
// denied (abstaining is not approving). Accepting with "approve" false,
// declining and dismissing are denials.
//
// With clients of protocol 2026-07-28 and later, asking ends the first run
// of the call (the approval extension reports it as not approved and the
// client never sees that result); the client answers and calls again, and
// the second run finds the answer, keyed by the tool and a hash of the
// exact arguments. Audit trails therefore show the first run too. Anyone
// who can call the server can also answer for its human: elicitation
// trusts the client, as any MCP approval does.
type Approver struct {
	// By names the decider in decisions (default "mcp-client").
	By string
}

// Approve implements approval.Approver.
func (a Approver) Approve(ctx context.Context, req approval.Request) (approval.Decision, error) {
	by := a.By
	if by == "" {
		by = "mcp-client"
	}
	hash, err := approval.HashArgs(req.Call.Args)
	if err != nil {
		return approval.Decision{}, fmt.Errorf("mcpserver: hash arguments: %w", err)
	}
	sum := sha256.Sum256([]byte(req.Call.Name + "\x00" + hash))
	id := "toolbelt-approve-" + hex.EncodeToString(sum[:8])
	res, err := Elicit(ctx, id, approvalQuestion(req))
	switch {
	case errors.Is(err, ErrNoElicitation):
		return approval.Decision{Kind: approval.Abstain, DecidedBy: by, Message: err.Error()}, nil
	case errors.Is(err, ErrNoAnswer):
		return approval.Denied(by, fmt.Sprintf("the user did not answer the request to run %s in time", req.Call.Name)), nil
	case err != nil:
		return approval.Decision{}, err
	}
	switch res.Action {
	case "accept":
		ok, _ := res.Content["approve"].(bool)
		if !ok {
			return approval.Denied(by, fmt.Sprintf("the user refused to run %s", req.Call.Name)), nil
		}
		d := approval.Approved(by)
		if remember, _ := res.Content["remember"].(bool); remember {
			d = d.WithScope(approval.ScopeSessionArgs)
		}
		return d, nil
	case "decline":
		return approval.Denied(by, fmt.Sprintf("the user declined to run %s", req.Call.Name)), nil
	}
	return approval.Denied(by, fmt.Sprintf("the user dismissed the request to run %s without approving it", req.Call.Name)), nil
}

// approvalSchema is the form the human fills in: a flat object, as
// elicitation requires.
var approvalSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"approve":{"type":"boolean","title":"Approve","description":"Run the tool with these arguments"},` +
	`"remember":{"type":"boolean","title":"Remember","description":"Approve the same call again for the rest of this session","default":false}` +
	`},"required":["approve"]}`)

func approvalQuestion(req approval.Request) *mcp.ElicitParams {
	// Everything from the call is made visible: a client shows this text
	// to a person, and control characters in it must not change what the
	// person reads.
	v := approval.Visible
	var b strings.Builder
	fmt.Fprintf(&b, "Allow the tool %q to run?", v(req.Call.Name))
	if req.Subject != "" {
		fmt.Fprintf(&b, "\nIt acts on: %s", v(req.Subject))
	}
	fmt.Fprintf(&b, "\nDanger: %v", req.Level)
	if len(req.Reasons) > 0 {
		fmt.Fprintf(&b, " (%s)", v(strings.Join(req.Reasons, "; ")))
	}
	if req.Required != "" {
		fmt.Fprintf(&b, "\nApproval is required because: %s", v(req.Required))
	}
	// The arguments whole, last: a cut let a long harmless field written
	// first hide the one that decides what runs.
	if args := v(string(req.Call.Args)); args != "" {
		fmt.Fprintf(&b, "\nArguments: %s", args)
	}
	return &mcp.ElicitParams{Mode: "form", Message: b.String(), RequestedSchema: approvalSchema}
}
