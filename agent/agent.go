// Package agent is a tool-calling loop to embed in an agent: it offers a
// model the tools the agent declared, runs the calls the model makes
// through an executor (so every extension — auth, policy, approval, audit —
// applies), feeds the results back, and stops when the model answers
// without calls, at a maximum number of iterations, or when the context
// ends.
//
// The model is a one-method interface a user implements over any provider
// client; agent/wire converts provider payloads to and from tool calls and
// results, and the nested modules providers/openai, providers/anthropic
// and providers/gemini implement Model over the providers' Go SDKs.
package agent

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/internal/approvalmeta"
	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Role is who wrote a message.
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of a provider-neutral conversation.
type Message struct {
	Role Role `json:"role"`
	// Text is the message's text (a user's question, a model's answer).
	Text string `json:"text,omitempty"`
	// Calls are the tool calls of an assistant message.
	Calls []tool.Call `json:"calls,omitempty"`
	// Results are the results of a tool message, in the order of the calls
	// (Run drops those of a model's turn).
	Results []*tool.Result `json:"results,omitempty"`
	// Raw is the provider's own payload of an assistant turn, kept as
	// received: Anthropic content blocks with thinking and redacted_thinking
	// blocks and their signatures, Gemini parts with thought signatures,
	// OpenAI Responses output items (reasoning, custom tool calls, items a
	// provider adds later). An adapter that reads its own RawFormat sends
	// Raw back unchanged instead of rebuilding the turn from Text and Calls,
	// so nothing the provider needs to see again is lost. Calls are still
	// read out of it; the loop only passes Raw along, except that it drops
	// the Raw of a turn whose call ids it renamed (a provider that repeats
	// ids across turns, an id over MaxCallIDBytes; see Run), which is then
	// rebuilt from its calls.
	Raw json.RawMessage `json:"raw,omitempty"`
	// RawFormat names Raw's format, a wire.Codec name ("anthropic",
	// "gemini", "openai_responses", "openai_chat"). An adapter ignores Raw
	// of another format and rebuilds the turn from Text and Calls.
	RawFormat string `json:"raw_format,omitempty"`
}

// Model is the one method a user implements over a provider client: given
// the conversation so far and the tools on offer, return the next assistant
// message (text, calls, or both).
type Model interface {
	Next(ctx context.Context, conversation []Message, tools []tool.Spec) (Message, error)
}

// ModelFunc adapts a function to Model.
type ModelFunc func(ctx context.Context, conversation []Message, tools []tool.Spec) (Message, error)

// Next calls f.
func (f ModelFunc) Next(ctx context.Context, conversation []Message, tools []tool.Spec) (Message, error) {
	return f(ctx, conversation, tools)
}

// DefaultMaxIterations bounds the model turns of one Run.
const DefaultMaxIterations = 10

// DefaultMaxCallsPerTurn bounds the calls of one model turn.
const DefaultMaxCallsPerTurn = 64

// MaxCallIDBytes bounds the id a model gives a call (providers' ids are a
// few dozen bytes): a longer one is replaced by an id the run makes (see
// Run), since the executor's history, the audit trail, approvals and
// events keep a call's id with every record of it.
const MaxCallIDBytes = 256

// Options configure Run.
type Options struct {
	// Executor runs the calls. Required.
	Executor *executor.Executor
	// Tools are the names of the tools the agent declared: only these are
	// offered to the model and only these run. A call to any other tool —
	// even one the registry holds — gets a not-found result, and the
	// executor's observers (extension.Observer: logging, metrics, audit)
	// are told of it, with the arguments masked as the executor's log
	// masks them (the Secrets of the registry's tool of that name, and
	// the default rule). Required unless AllTools is set.
	Tools []string
	// AllTools offers every registered tool instead of a declared list.
	AllTools bool
	// Offer, when set, is asked before each model turn which of the
	// agent's tools to show the model: a governance policy's Allows shows
	// only those its current mode lets run, so a switch to lockdown hides
	// the writing tools from the next turn on. A call to a tool it hid
	// that turn does not run: it gets a policy-denied result saying the
	// tool is not offered now, and the executor's observers are told of
	// it, as of an undeclared call.
	Offer func(spec *tool.Spec) bool
	// MaxIterations bounds the model turns (default DefaultMaxIterations).
	MaxIterations int
	// MaxCallsPerTurn bounds the calls of one model turn (default
	// DefaultMaxCallsPerTurn): a turn with more is a model error, and none
	// of its calls runs. With MaxIterations it bounds the calls of a run.
	MaxCallsPerTurn int
	// Agent, Session and Principal are stamped on every call, for limits,
	// approval scopes, authorisation and audit. They replace whatever the
	// model's call carried, empty ones too (an empty Principal lets the
	// executor take the context's, tool.WithPrincipal): a model's turn is
	// untrusted output, and only the call's id, tool name and arguments
	// are taken from it. Its Mode, Timeout, TraceID and SpanID are
	// cleared.
	Agent     string
	Session   string
	Principal tool.Principal
	// Provider is stamped on every call as tool.Call.Provider ("openai",
	// "anthropic", "gemini", "ollama", ...): views group live calls by it.
	// Default: the model's Provider method, if it has one; with neither,
	// the provider the model's call names, if any.
	Provider string
}

// ProviderNamer is a Model that names its provider (the provider modules'
// models do); Run stamps the name on each call unless Options.Provider is
// set.
type ProviderNamer interface {
	Provider() string
}

// Decision is an approval decision recorded for a call.
type Decision struct {
	CallID    string `json:"call_id"`
	Tool      string `json:"tool"`
	Decision  string `json:"decision"`
	DecidedBy string `json:"decided_by,omitempty"`
}

// Step is one model turn that made calls.
type Step struct {
	Iteration int            `json:"iteration"`
	Calls     []tool.Call    `json:"calls"`
	Results   []*tool.Result `json:"results"`
	Decisions []Decision     `json:"decisions,omitempty"`
}

// StopReason says why Run stopped.
type StopReason string

// The reasons a run stops.
const (
	StopAnswered      StopReason = "answered"
	StopMaxIterations StopReason = "max_iterations"
	StopContext       StopReason = "context"
	StopModelError    StopReason = "model_error"
)

// Transcript records a run: the whole conversation, every step's calls,
// decisions and results, and why it stopped.
type Transcript struct {
	Messages   []Message  `json:"messages"`
	Steps      []Step     `json:"steps"`
	Final      string     `json:"final,omitempty"`
	Iterations int        `json:"iterations"`
	Stop       StopReason `json:"stop"`
}

// ErrMaxIterations is returned (wrapped) when the model is still calling
// tools after MaxIterations turns.
var ErrMaxIterations = errors.New("agent: maximum iterations reached")

// Run drives the loop from messages until the model answers without calls.
// The transcript is returned in every case, also with an error. A turn
// whose calls share an id, or that makes more than Options.MaxCallsPerTurn
// calls, is a model error: none of its calls runs. Every call runs under
// an id new in the conversation (messages included), as a denial, and an
// approval not yet delivered, are found again by the call's id: a call
// the model gave no id gets
// call_TURN_N_TAG ("call_2_0_9f3a1c2e" for the first of turn 2, TAG
// random for the run), one with the id wire.Gemini makes up (NAME#N) has
// TAG added (a turn of another format than Gemini's, whose Raw names the
// id, is then rebuilt from its calls), one whose id an earlier call had gets that id with a
// suffix ("_2"), and one whose id is longer than MaxCallIDBytes gets
// call_TURN_N_TAG (a turn with ids renamed goes back to the provider
// rebuilt from its calls: see Message.Raw). A call keeps only its
// id, tool name and arguments from the model; who it acts for is the
// run's (Options.Agent, Session and Principal).
func Run(ctx context.Context, model Model, messages []Message, opts Options) (*Transcript, error) {
	tr := &Transcript{Messages: slices.Clone(messages)}
	if model == nil {
		return tr, errors.New("agent: no model: pass a Model (or agent.ModelFunc) over your provider client")
	}
	if opts.Executor == nil {
		return tr, errors.New("agent: Options.Executor is nil: pass executor.New(reg, ...)")
	}
	if len(opts.Tools) == 0 && !opts.AllTools {
		return tr, errors.New("agent: no tools declared: list the agent's tools in Options.Tools (only declared tools are offered and run), or set AllTools")
	}
	max := opts.MaxIterations
	if max <= 0 {
		max = DefaultMaxIterations
	}
	maxCalls := opts.MaxCallsPerTurn
	if maxCalls <= 0 {
		maxCalls = DefaultMaxCallsPerTurn
	}
	provider := opts.Provider
	if pn, ok := model.(ProviderNamer); ok && provider == "" {
		provider = pn.Provider()
	}
	reg := opts.Executor.Registry()
	filter := registry.Filter{}
	if !opts.AllTools {
		filter.Names = opts.Tools
	}
	specs := reg.List(filter)
	offered := make(map[string]bool, len(specs))
	for _, s := range specs {
		offered[s.Name] = true
	}
	// used holds the ids of the conversation's calls, those of messages
	// too; tag marks the ids this run fills in.
	used := map[string]bool{}
	for _, m := range messages {
		for _, c := range m.Calls {
			used[c.ID] = true
		}
	}
	tag := runTag()
	for i := 1; ; i++ {
		if err := ctx.Err(); err != nil {
			tr.Stop = StopContext
			return tr, fmt.Errorf("agent: stopped before turn %d: %w", i, err)
		}
		if i > max {
			tr.Stop = StopMaxIterations
			return tr, fmt.Errorf("%w: the model was still calling tools after %d turns (last: %s); raise Options.MaxIterations or check for a repeating call", ErrMaxIterations, max, lastCalls(tr, reg))
		}
		shown := specs
		if opts.Offer != nil {
			shown = slices.DeleteFunc(slices.Clone(specs), func(s tool.Spec) bool { return !opts.Offer(&s) })
		}
		reply, err := model.Next(ctx, tr.Messages, shown)
		if err != nil {
			if ctx.Err() != nil {
				tr.Stop = StopContext
			} else {
				tr.Stop = StopModelError
			}
			return tr, fmt.Errorf("agent: model turn %d: %w", i, err)
		}
		tr.Iterations = i
		// An assistant turn is text, calls and the provider's payload:
		// results the model's message carried (a Model decoding it from
		// JSON hands it every field) would stand in the transcript as a
		// tool's answer, with an approval, that no tool gave.
		reply.Role, reply.Results = RoleAssistant, nil
		if len(reply.Calls) > maxCalls {
			tr.Stop = StopModelError
			return tr, fmt.Errorf("agent: model turn %d made %d calls, more than Options.MaxCallsPerTurn (%d): nothing was run", i, len(reply.Calls), maxCalls)
		}
		if err := uniqueIDs(reply.Calls); err != nil {
			tr.Stop = StopModelError
			return tr, fmt.Errorf("agent: model turn %d: %w", i, err)
		}
		turn := make(map[string]bool, len(reply.Calls))
		for _, c := range reply.Calls {
			if c.ID != "" {
				turn[c.ID] = true
			}
		}
		taken := func(id string) bool { return used[id] || turn[id] }
		// The calls are rewritten in a copy: the model's slice may be
		// one it keeps.
		reply.Calls = slices.Clone(reply.Calls)
		for j, c := range reply.Calls {
			// What the call is (id, tool, arguments) is the model's; who it
			// acts for and how it runs are the run's: the model's turn is
			// untrusted output. Its id is new in the conversation (see
			// freshID).
			id := c.ID
			switch {
			case id == "":
				id = freshID(fmt.Sprintf("call_%d_%d_%s", i, j, tag), taken)
			case len(id) > MaxCallIDBytes:
				// Kept with every record of the call (history, audit,
				// approvals, events): one the run makes instead, and the
				// turn rebuilt from its calls, as below.
				id = freshID(fmt.Sprintf("call_%d_%d_%s", i, j, tag), taken)
				reply.Raw, reply.RawFormat = nil, ""
			case strings.HasPrefix(id, c.Name+"#"):
				// wire's id for a call that came without one (Gemini's
				// NAME#N, the same in every conversation): the run's,
				// as a missing one is. The Gemini provider sends none.
				id = freshID(id+"_"+tag, taken)
				if reply.RawFormat != wire.Gemini.Name() {
					// Gemini's Raw names no id (its results go back by
					// name and order); another format's names the old
					// one: the turn is sent back from its calls.
					reply.Raw, reply.RawFormat = nil, ""
				}
			case used[id]:
				id = freshID(id, taken)
				// The provider's own payload names the old id: the turn
				// is sent back from its calls, with the ids they ran as.
				reply.Raw, reply.RawFormat = nil, ""
			}
			turn[id] = true
			reply.Calls[j] = tool.Call{
				ID: id, Name: c.Name, Args: c.Args,
				Provider: cmp.Or(provider, c.Provider),
				Agent:    opts.Agent, Session: opts.Session, Principal: opts.Principal,
			}
		}
		for id := range turn {
			used[id] = true
		}
		tr.Messages = append(tr.Messages, reply)
		if len(reply.Calls) == 0 {
			tr.Final = reply.Text
			tr.Stop = StopAnswered
			return tr, nil
		}
		var hidden map[string]bool // declared tools Offer did not show this turn
		if len(shown) < len(specs) {
			hidden = make(map[string]bool, len(specs)-len(shown))
			for _, s := range specs {
				hidden[s.Name] = true
			}
			for _, s := range shown {
				delete(hidden, s.Name)
			}
		}
		results := runCalls(ctx, opts.Executor, reply.Calls, offered, hidden, specs, shown)
		step := Step{Iteration: i, Calls: reply.Calls, Results: results}
		for _, r := range results {
			if d, ok := decisionOf(r); ok {
				step.Decisions = append(step.Decisions, d)
			}
		}
		tr.Steps = append(tr.Steps, step)
		tr.Messages = append(tr.Messages, Message{Role: RoleTool, Results: results})
	}
}

// uniqueIDs refuses a turn whose calls share an id: their results could
// not be matched to them (the provider refuses the next request, after
// the calls ran), nor could the audit trail, history and approvals tell
// them apart. Calls without an id are given distinct ones (freshID).
func uniqueIDs(calls []tool.Call) error {
	if len(calls) < 2 {
		return nil
	}
	seen := make(map[string]int, len(calls))
	for i, c := range calls {
		if c.ID == "" {
			continue
		}
		if j, ok := seen[c.ID]; ok {
			// The names and the id are the model's: cut short, so that the
			// error stays a line to log.
			return fmt.Errorf("calls #%d (%s) and #%d (%s) have the same id %q: nothing was run; a model's calls of one turn need distinct ids",
				j, oneLine(clipText(calls[j].Name, maxNameShown)), i, oneLine(clipText(c.Name, maxNameShown)), clipText(c.ID, maxNameShown))
		}
		seen[c.ID] = i
	}
	return nil
}

// freshID is base, or base with a suffix ("_2", "_3", ...), whichever is
// not taken. Every call the loop runs has an id new in the conversation:
// the approval queue takes a call with the id, tool, arguments and
// identity of a decided one for that call asked again (a job retried) and
// gives it that decision: a denial for good, an approval once, if its
// first waiter never received it. Before approvals were spent by one run,
// a call that repeated an approved payment under its id ran with nobody
// asked; a repeated id would still meet an earlier denial, or the
// approval of a run that died. A model's id an earlier call had (a
// hostile one's) gets a suffix; a call without an id gets
// call_TURN_N_TAG, and one with the id wire.Gemini makes for a call that
// has none (NAME#N, the same in every turn) gets TAG added, TAG being
// random for the run: the run may continue a conversation whose history
// it is not given whole (a window of the last messages), where calls got
// the same ids.
func freshID(base string, taken func(string) bool) string {
	id := base
	for k := 2; taken(id); k++ {
		id = fmt.Sprintf("%s_%d", base, k)
	}
	return id
}

// runTag is 8 random hex digits that mark the ids one run fills in.
func runTag() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// runCalls answers undeclared tools with not-found results, and declared
// ones hidden this turn (Options.Offer) with policy-denied ones, and runs
// the rest as one batch, keeping call order. The executor's observers
// (extension.Observer: logging, metrics, audit) are told of each call it
// refuses, as the executor tells them of a call to an unknown tool, so
// that a model trying tools it was not offered leaves a trace.
func runCalls(ctx context.Context, ex *executor.Executor, calls []tool.Call, offered, hidden map[string]bool, specs, shown []tool.Spec) []*tool.Result {
	results := make([]*tool.Result, len(calls))
	var batch []tool.Call
	var idx []int
	for i, c := range calls {
		if !offered[c.Name] {
			res := tool.Fail(&c, tool.CodeNotFound, fmt.Sprintf("tool %q is not available to this agent: use one of %s", clipText(c.Name, maxNameShown), names(specs)))
			results[i] = res
			observeRefusal(ctx, ex, c, res)
			continue
		}
		if hidden[c.Name] {
			// Declared, but Options.Offer did not show it this turn (a
			// mode that forbids it, a subset for the task): the model
			// may not run what it was not offered by naming it.
			msg := fmt.Sprintf("tool %q is not offered to you now: it cannot be called in this turn", c.Name)
			if len(shown) > 0 {
				msg += "; use one of " + names(shown)
			}
			res := tool.Fail(&c, tool.CodePolicyDenied, msg)
			results[i] = res
			observeRefusal(ctx, ex, c, res)
			continue
		}
		batch = append(batch, c)
		idx = append(idx, i)
	}
	if len(batch) > 0 {
		for k, r := range ex.ExecuteBatch(ctx, batch) {
			results[idx[k]] = r
		}
	}
	return results
}

// maxNameShown bounds a tool name the model wrote where a message repeats
// it (a valid name is at most 64 bytes).
const maxNameShown = 64

// observeRefusal tells ex's observers of a call the loop refused, with
// its name cut short (executor.ReportRefused) and its arguments masked
// (maskedArgs): ReportRefused gives the observers no spec, so logging and
// the audit trail would write the arguments its tool declares secret as
// the model wrote them.
func observeRefusal(ctx context.Context, ex *executor.Executor, c tool.Call, res *tool.Result) {
	c.Args = maskedArgs(ex.Registry(), c)
	c.Name = clipText(c.Name, maxNameShown)
	r := *res
	r.Tool = c.Name
	ex.ReportRefused(ctx, &c, &r)
}

// maskedArgs is c's arguments as a log may write them (redact.Args): the
// fields the registry's tool of that name declares secret (Spec.Secrets,
// also for a tool the agent did not declare) and those the default rule
// finds are masked. The model may pass on a secret it read in a result.
func maskedArgs(reg *registry.Registry, c tool.Call) json.RawMessage {
	var secrets []string
	if e, ok := reg.Lookup(c.Name); ok {
		secrets = e.Spec.Secrets
	}
	return redact.Args(c.Args, secrets)
}

func names(specs []tool.Spec) string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return strings.Join(out, ", ")
}

func lastCalls(tr *Transcript, reg *registry.Registry) string {
	if len(tr.Steps) == 0 {
		return "none"
	}
	// The calls are the model's: a few of them, each cut short, so that the
	// error stays a line to log, with their secrets masked as a log's
	// (maskedArgs) before the cut, which would leave JSON redact cannot read.
	const maxListed, maxArgs = 3, 200
	calls := tr.Steps[len(tr.Steps)-1].Calls
	var parts []string
	for _, c := range calls[:min(len(calls), maxListed)] {
		args := maskedArgs(reg, c)
		var compact bytes.Buffer
		if json.Compact(&compact, args) == nil {
			args = compact.Bytes() // JSON's blanks include line breaks
		}
		parts = append(parts, fmt.Sprintf("%s(%s)", oneLine(clipText(c.Name, maxNameShown)), oneLine(clipText(string(args), maxArgs))))
	}
	if len(calls) > maxListed {
		parts = append(parts, fmt.Sprintf("and %d more", len(calls)-maxListed))
	}
	return strings.Join(parts, ", ")
}

// oneLine is s, the model's text in an error meant as a line to log, as
// it is when every character of it is printable, else quoted (Go
// syntax): a line break, a Unicode line separator or a bidi control in a
// tool name would write a line of the model's choosing into a log that
// writes the error as it is.
func oneLine(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return s
	}
	return strconv.Quote(s)
}

// clipText is s cut to at most n bytes at a rune boundary, marked with
// "..." when cut.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return textcut.Head(s, n) + "..."
}

// decisionOf reads the approval decision an approval extension records in
// a result's metadata (approval.MetaKey), as the audit trail and the
// metrics read it (approvalmeta.Decision).
func decisionOf(r *tool.Result) (Decision, bool) {
	if r == nil {
		return Decision{}, false
	}
	d := Decision{CallID: r.CallID, Tool: r.Tool}
	d.Decision, d.DecidedBy = approvalmeta.Decision(r.Metadata)
	if d.Decision == "" {
		return Decision{}, false
	}
	return d, true
}
