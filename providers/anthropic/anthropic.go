// Package anthropic adapts the official Anthropic Go SDK
// (github.com/anthropics/anthropic-sdk-go) to agent.Model, over the
// Messages API.
//
// It is its own Go module, so the Toolbelt module does not depend on the
// SDK.
//
// What it sends: system messages as the request's system prompt, user and
// assistant turns as messages (an assistant's calls as tool_use blocks),
// and results as one user message of tool_result blocks, each with its
// tool_use_id, the compact text of wire.Text and is_error when the call
// failed; the offered tools as registry.ExportTool renders them for
// Anthropic. What it returns: the reply's text blocks and its tool_use
// blocks, read with wire.Anthropic, and the reply's content blocks as
// agent.Message.Raw: the next turn sends them back unchanged, so thinking
// and redacted_thinking blocks keep their signatures (the API refuses a
// tool-use turn with thinking that lost them) and block types this adapter
// does not know (server-tool results, ...) are not lost.
//
// What an endpoint sends back is untrusted (a proxy, a man in the
// middle): at most DefaultMaxResponseBytes of a response body are read
// (WithMaxResponseBytes), an answer or a stream's event may hold at most
// MaxResponseElements array elements and MaxResponseMembers object
// members, and the key a request carried is redacted as
// "[REDACTED]" from an error response, before the SDK reads it, and from
// the text of the errors Next returns (the whole key as sent, as it is or
// encoded: JSON escapes, percent-encoding, hex, base64). The SDK's
// *anthropic.Error that a returned error wraps is made safe to print too:
// its request is a copy with a base URL's password ("xxxxx") and the
// credential headers masked (the SDK's text prints the request's URL), and
// the body of a stream's error event is redacted.
//
// A base URL http:// to a host that is not this machine (localhost,
// 127.0.0.0/8, ::1) is refused before anything is sent (ErrPlainHTTP): the
// key and the conversation would cross the network in clear text.
// WithInsecureHTTP allows it, for a server you trust on your own network;
// http to this machine (a local model server) needs no option.
//
// A redirect is followed only within the endpoint's origin (scheme, host
// and port), at most 10: net/http would send x-api-key to any host (and
// Authorization to another port), so a redirect elsewhere is an error
// naming both origins. The requests go through a copy of the client's
// HTTP client with that CheckRedirect; a client's CheckRedirect of its
// own is asked after it, about redirects within the origin only. The copy
// is made the first time a Model sees the client: a later change to that
// *http.Client's fields (Transport, Timeout, CheckRedirect) is not seen
// by the Model; build a new Model after changing it. A custom
// option.WithHTTPClient doer (not an *http.Client) follows redirects
// where the adapter cannot see them, so the key may go along to another
// origin: its answer from another origin is refused (an error saying so),
// but give the SDK an *http.Client to keep the key from going.
//
//	client := sdk.NewClient(option.WithAPIKey(os.Getenv("ANTHROPIC_API_KEY")))
//	model := anthropic.New(client, "claude-sonnet-4-5")
//	tr, err := agent.Run(ctx, model, msgs, agent.Options{Executor: ex, Tools: []string{"get_weather"}})
package anthropic

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/internal/errtext"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/providers/internal/guard"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Format is the agent.Message.RawFormat of the turns this adapter returns
// (the name of the wire.Anthropic codec).
const Format = "anthropic"

// DefaultMaxTokens is the max_tokens sent when WithMaxTokens is not given
// (the Messages API requires the field).
const DefaultMaxTokens = 4096

// Model is an agent.Model over the Messages API of an Anthropic client. It
// holds no conversation state, so one Model may serve many runs at once.
type Model struct {
	client    sdk.Client
	model     string
	maxTokens int64
	params    func(*sdk.MessageNewParams)
	stream    func(text string)
	maxBytes  int64
	// clients gives the copy of the client's HTTP client that follows
	// redirects only within the endpoint's origin (requestGuard).
	clients *guard.Clients
	// insecureHTTP allows http:// to a host other than this machine
	// (WithInsecureHTTP).
	insecureHTTP bool
}

var _ agent.Model = (*Model)(nil)

// Option configures a Model.
type Option func(*Model)

// WithMaxTokens sets max_tokens, the cap on one reply's length.
func WithMaxTokens(n int64) Option { return func(m *Model) { m.maxTokens = n } }

// WithParams lets fn adjust each request after the adapter has filled in
// the model, system prompt, messages and tools (temperature, tool choice,
// ...).
func WithParams(fn func(*sdk.MessageNewParams)) Option {
	return func(m *Model) { m.params = fn }
}

// WithStream streams the reply: fn receives each text delta as it arrives
// (thinking is not passed on); Next still returns the whole turn. A
// text_delta for a block that is not a text block (which the turn's text
// would not hold) is an error of Next, and is not passed on; so is a
// stream that ends without message_stop (cut short: its calls would be
// lost and its text taken for an answer) or goes on after it, and a second
// content_block_stop for a block or a delta for a block after its stop.
// Reading a stream takes memory linear in it: a block's text, thinking
// and signature deltas are gathered here, not added one by one by the
// SDK's accumulator, which copies the whole text for each.
func WithStream(fn func(text string)) Option { return func(m *Model) { m.stream = fn } }

// New returns a Model that asks model (for example "claude-sonnet-4-5")
// through client. The client's options (API key, base URL, retries, HTTP
// client) apply unchanged.
func New(client sdk.Client, model string, opts ...Option) *Model {
	m := &Model{client: client, model: model, maxTokens: DefaultMaxTokens, clients: &guard.Clients{}}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Provider names the provider for agent.Run, which stamps it on each call.
func (m *Model) Provider() string { return "anthropic" }

// Next sends the conversation and the tools and returns the model's reply:
// its text and its tool calls. An API error (an HTTP 4xx or 5xx after the
// SDK's own retries) comes back wrapping the SDK's *anthropic.Error, with
// the status, the error type and the body the API sent.
func (m *Model) Next(ctx context.Context, conversation []agent.Message, tools []tool.Spec) (_ agent.Message, err error) {
	params, err := m.Request(conversation, tools)
	if err != nil {
		return agent.Message{}, err
	}
	var resp *sdk.Message
	g, guarded := requestGuard(m.maxBytes, m.clients, m.insecureHTTP)
	// An answer refused below is the endpoint's too: its errors quote
	// its ids, which may echo the key, at any length.
	defer func() { err = g.Err(err) }()
	if m.stream == nil {
		resp, err = m.client.Messages.New(ctx, params, guarded)
	} else {
		resp, err = m.streamed(ctx, params, guarded)
	}
	if err != nil {
		return agent.Message{}, apiError(g, m.model, err)
	}
	if resp == nil { // the body was JSON null
		return agent.Message{}, fmt.Errorf("anthropic: the API sent no message (null)")
	}
	raw := []byte(resp.RawJSON())
	calls, err := wire.Anthropic.Calls(raw)
	if err != nil {
		return agent.Message{}, fmt.Errorf("anthropic: message %s: %w", resp.ID, err)
	}
	var text []string
	for _, b := range resp.Content {
		if b.Type == "text" && b.Text != "" {
			text = append(text, b.Text)
		}
	}
	var body struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return agent.Message{}, fmt.Errorf("anthropic: message %s: %w", resp.ID, err)
	}
	return agent.Message{Role: agent.RoleAssistant, Text: strings.Join(text, "\n"), Calls: calls, Raw: body.Content, RawFormat: Format}, nil
}

// streamed runs a streaming request, passing text deltas on as they come,
// and returns the message the events add up to.
func (m *Model) streamed(ctx context.Context, params sdk.MessageNewParams, opts ...option.RequestOption) (*sdk.Message, error) {
	stream := m.client.Messages.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var msg sdk.Message
	// texts gathers each content block's text, thinking and signature
	// deltas (texts[i] is msg.Content[i]'s). The accumulator adds a delta
	// with cb.Text += delta, a copy of the whole text each time, so a
	// stream of small deltas would allocate the square of its length: they
	// are kept here and written into the block once, at its stop.
	var texts []*blockText
	started, stopped := false, false
	for stream.Next() {
		ev := stream.Current()
		if stopped && ev.Type != "ping" {
			// The accumulator writes the blocks into the message's JSON,
			// which the turn is read from, at message_stop alone: what
			// comes after would be shown and put in the text, never in the
			// calls or the Raw sent back.
			return nil, fmt.Errorf("stream: a %s event after message_stop: the stream is broken", clipType(ev.Type))
		}
		stopped = ev.Type == "message_stop"
		// An index out of range is left to Accumulate, which refuses it.
		inRange := ev.Index >= 0 && ev.Index < int64(len(texts))
		switch ev.Type {
		case "message_start":
			// The accumulator would take a second one as the message and
			// drop what came before, which the callback has already shown.
			if started {
				return nil, errors.New("stream: a second message_start: the stream is broken")
			}
			started = true
		case "message_delta":
			// The accumulator merges it into the whole message's JSON, a
			// copy of the message for each key, so many of them would
			// allocate the square of the stream; it only sets the stop
			// reason and usage, which the turn does not hold.
			continue
		case "content_block_delta":
			if !inRange {
				break
			}
			b := texts[ev.Index]
			if b.stopped {
				// Written nowhere the turn is read from (the block's JSON
				// was written at its stop), or written after it was shown
				// as whole.
				return nil, fmt.Errorf("stream: a %s for content block %d after its content_block_stop: the stream is broken", clipType(ev.Delta.Type), ev.Index)
			}
			switch ev.Delta.Type {
			case "text_delta":
				// The accumulator adds the text to the block the index
				// names, of any type; the turn's text is its text blocks'
				// alone, so text for another block would be shown and
				// never recorded.
				if ev.Delta.Text == "" {
					continue
				}
				if typ := msg.Content[ev.Index].Type; typ != "text" {
					return nil, fmt.Errorf("stream: a text_delta for content block %d, a %q block: the stream is broken", ev.Index, clipType(typ))
				}
				b.text.WriteString(ev.Delta.Text)
				m.stream(ev.Delta.Text)
				continue
			case "thinking_delta":
				b.thinking.WriteString(ev.Delta.Thinking)
				continue
			case "signature_delta":
				b.signature.WriteString(ev.Delta.Signature)
				continue
			}
		case "content_block_stop":
			if !inRange {
				break
			}
			// The accumulator writes the block's text into its JSON again
			// at each stop: a block stopped over and over would be copied
			// as many times.
			if texts[ev.Index].stopped {
				return nil, fmt.Errorf("stream: a second content_block_stop for content block %d: the stream is broken", ev.Index)
			}
			texts[ev.Index].stopped = true
			texts[ev.Index].writeTo(&msg.Content[ev.Index])
		case "message_stop":
			// The accumulator writes every block into the message's JSON,
			// those never stopped too.
			for i, b := range texts {
				if !b.stopped {
					b.writeTo(&msg.Content[i])
				}
			}
		}
		if err := msg.Accumulate(ev); err != nil {
			return nil, fmt.Errorf("stream: %w", err)
		}
		// message_start's content and content_block_start's block are new
		// blocks, their text the start of what their deltas add to.
		for len(texts) < len(msg.Content) {
			texts = append(texts, newBlockText(msg.Content[len(texts)]))
		}
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	if !stopped {
		// Cut short (an endpoint or a proxy that closed it): the message's
		// JSON still holds message_start's content, so the turn would be
		// the text shown so far with its calls dropped, taken for an answer.
		return nil, errors.New("stream: the stream ended without message_stop: the turn is incomplete (cut by the endpoint or the network); ask again")
	}
	return &msg, nil
}

// blockText is one streamed content block's text, thinking and signature
// as its deltas add to them, and whether the block has stopped.
type blockText struct {
	text, thinking, signature strings.Builder
	stopped                   bool
}

// newBlockText starts a block's text, thinking and signature with what
// its start carried.
func newBlockText(cb sdk.ContentBlockUnion) *blockText {
	b := &blockText{}
	b.text.WriteString(cb.Text)
	b.thinking.WriteString(cb.Thinking)
	b.signature.WriteString(cb.Signature)
	return b
}

// writeTo sets the block's fields to what the deltas added up to, as the
// accumulator would have, before it writes them into the block's JSON.
func (b *blockText) writeTo(cb *sdk.ContentBlockUnion) {
	cb.Text = b.text.String()
	cb.Thinking = b.thinking.String()
	cb.Signature = b.signature.String()
}

// clipType is a block type the endpoint sent, cut short for an error's
// text where a character starts (textcut).
func clipType(s string) string {
	if len(s) > 64 {
		return textcut.Head(s, 64) + "..."
	}
	return s
}

// Request builds the request Next sends, so it can be inspected or logged.
func (m *Model) Request(conversation []agent.Message, tools []tool.Spec) (sdk.MessageNewParams, error) {
	params := sdk.MessageNewParams{Model: sdk.Model(m.model), MaxTokens: m.maxTokens}
	for i, msg := range conversation {
		if msg.Role == agent.RoleSystem {
			params.System = append(params.System, sdk.TextBlockParam{Text: msg.Text})
			continue
		}
		converted, err := message(msg)
		if err != nil {
			return params, fmt.Errorf("anthropic: message #%d (%s): %w", i, msg.Role, err)
		}
		params.Messages = append(params.Messages, converted)
	}
	for _, spec := range tools {
		def, err := toolParam(spec)
		if err != nil {
			return params, err
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: &def})
	}
	if m.params != nil {
		m.params(&params)
	}
	return params, nil
}

func message(msg agent.Message) (sdk.MessageParam, error) {
	switch msg.Role {
	case agent.RoleUser:
		return sdk.NewUserMessage(sdk.NewTextBlock(msg.Text)), nil
	case agent.RoleAssistant:
		if msg.RawFormat == Format && len(msg.Raw) > 0 {
			// The turn as the API sent it: thinking signatures and blocks
			// of types this adapter does not model go back byte for byte.
			if !json.Valid(msg.Raw) {
				return sdk.MessageParam{}, errors.New("raw anthropic content is not JSON")
			}
			body, err := json.Marshal(map[string]any{"role": "assistant", "content": msg.Raw})
			if err != nil {
				return sdk.MessageParam{}, err
			}
			return param.Override[sdk.MessageParam](json.RawMessage(body)), nil
		}
		var blocks []sdk.ContentBlockParamUnion
		if msg.Text != "" {
			blocks = append(blocks, sdk.NewTextBlock(msg.Text))
		}
		for _, c := range msg.Calls {
			if c.ID == "" {
				return sdk.MessageParam{}, fmt.Errorf("tool call to %q has no id: the result could not be matched to it", c.Name)
			}
			args := c.Args
			if len(args) == 0 || !json.Valid(args) {
				// tool_use input must be an object; a call whose arguments
				// were not JSON was answered with invalid_arguments anyway.
				args = json.RawMessage("{}")
			}
			blocks = append(blocks, sdk.NewToolUseBlock(c.ID, args, c.Name))
		}
		if len(blocks) == 0 {
			return sdk.MessageParam{}, errors.New("assistant message has neither text nor tool calls")
		}
		return sdk.NewAssistantMessage(blocks...), nil
	case agent.RoleTool:
		blocks := make([]sdk.ContentBlockParamUnion, 0, len(msg.Results))
		for j, r := range msg.Results {
			if r == nil || r.CallID == "" {
				return sdk.MessageParam{}, fmt.Errorf("result #%d has no call id: Anthropic needs tool_use_id to match it to its call", j)
			}
			blocks = append(blocks, sdk.NewToolResultBlock(r.CallID, wire.Text(r), r.Error != nil))
		}
		if len(blocks) == 0 {
			return sdk.MessageParam{}, errors.New("tool message has no results")
		}
		return sdk.NewUserMessage(blocks...), nil
	}
	return sdk.MessageParam{}, fmt.Errorf("unknown role %q: use system, user, assistant or tool", msg.Role)
}

// toolParam renders a spec with the registry's Anthropic export: the input
// schema goes as it is, its properties and required list in their fields
// and every other keyword alongside.
func toolParam(spec tool.Spec) (sdk.ToolParam, error) {
	raw, _, err := registry.ExportTool(registry.Anthropic, spec)
	if err != nil {
		return sdk.ToolParam{}, fmt.Errorf("anthropic: tool %q: %w", spec.Name, err)
	}
	var def struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"input_schema"`
	}
	if err := json.Unmarshal(raw, &def); err != nil {
		return sdk.ToolParam{}, fmt.Errorf("anthropic: tool %q: export: %w", spec.Name, err)
	}
	schema := sdk.ToolInputSchemaParam{Properties: def.InputSchema["properties"]}
	if req, ok := def.InputSchema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				schema.Required = append(schema.Required, s)
			}
		}
	}
	for k, v := range def.InputSchema {
		switch k {
		case "type", "properties", "required":
		default:
			if schema.ExtraFields == nil {
				schema.ExtraFields = map[string]any{}
			}
			schema.ExtraFields[k] = v
		}
	}
	p := sdk.ToolParam{Name: def.Name, InputSchema: schema}
	if def.Description != "" {
		p.Description = sdk.String(def.Description)
	}
	return p, nil
}

// apiError adds the status, the error type and a hint to the SDK's error,
// whose text already holds the response body. The SDK's error, which the
// returned one wraps for errors.As, is made safe to print first (see
// scrub).
func apiError(g *guard.Guard, model string, err error) error {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("anthropic: messages with model %q: %w", model, err)
	}
	scrub(g, apiErr)
	hint := ""
	switch {
	case apiErr.StatusCode == 429:
		hint = " (rate limited: the SDK's retries are spent; wait, or raise option.WithMaxRetries)"
	case apiErr.StatusCode == 529 || apiErr.Type() == "overloaded_error":
		hint = " (API overloaded: retry later)"
	case apiErr.StatusCode == 401:
		hint = " (check the API key)"
	}
	// The SDK's own text repeats the status and prints the whole body (the
	// type again, the message): say each once, and keep the SDK's error for
	// errors.As.
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		RequestID string `json:"request_id"`
	}
	detail := apiErr.RawJSON()
	if json.Unmarshal([]byte(detail), &body) == nil && body.Error.Message != "" {
		detail = body.Error.Message
	}
	text := fmt.Sprintf("anthropic: messages with model %q failed: HTTP %d, type %q: %s%s", model, apiErr.StatusCode, apiErr.Type(), detail, hint)
	if id := cmp.Or(apiErr.RequestID, body.RequestID); id != "" {
		text += " (request id " + id + ")"
	}
	return errtext.New(text, err)
}

// scrub makes the SDK's error safe to print: its Error prints the
// request's URL, a base URL's user and password included, and the body of
// a stream's error event (not an error response, which the guard has
// redacted already) may echo the key. The request it keeps becomes a copy
// with the password and the credential headers masked (guard.Request),
// and its body is redacted.
func scrub(g *guard.Guard, apiErr *sdk.Error) {
	apiErr.Request = guard.Request(apiErr.Request)
	if apiErr.Response != nil {
		res := *apiErr.Response
		res.Request = apiErr.Request
		apiErr.Response = &res
	}
	if raw := apiErr.RawJSON(); raw != "" {
		if red := g.Text(raw); red != raw {
			_ = apiErr.UnmarshalJSON([]byte(red))
		}
	}
}
