// Package openai adapts the official OpenAI Go SDK
// (github.com/openai/openai-go/v3) to agent.Model: Model over the Chat
// Completions API, ResponsesModel over the Responses API. Model also serves
// local models behind an OpenAI-compatible server (Ollama, vLLM,
// llama.cpp) through the client's option.WithBaseURL; see
// examples/local-model.
//
// It is its own Go module, so the Toolbelt module does not depend on the
// SDK.
//
// What it sends: the conversation as chat messages (system, user,
// assistant with tool_calls, one role "tool" message per result with its
// tool_call_id and the compact text of wire.Text), and the offered tools as
// registry.ExportTool renders them for OpenAI — "strict": true where the
// schema allows it, the strict schema (every property required, optional
// ones nullable) included. What it returns: the first choice's text and
// tool calls, read with wire.OpenAIChat.
//
// What an endpoint sends back is untrusted (a compatible server, a proxy):
// at most DefaultMaxResponseBytes of a response body are read
// (WithMaxResponseBytes), an answer or a stream's event may hold at most
// MaxResponseElements array elements and MaxResponseMembers object
// members, a chat stream may add up to at most
// MaxStreamToolCalls tool calls, and the key a request carried is redacted as
// "[REDACTED]" from an error response, before the SDK reads it, and from
// the text of the errors Next returns (the whole key as sent, as it is or
// encoded: JSON escapes, percent-encoding, hex, base64). The SDK's errors
// that a returned error wraps are made safe to print too: an
// *openai.Error's request is a copy with a base URL's password ("xxxxx")
// and the credential headers masked (its DumpRequest printed the key),
// and a stream's error event (*ssestream.StreamError) is redacted.
//
// A base URL http:// to a host that is not this machine (localhost,
// 127.0.0.0/8, ::1) is refused before anything is sent (ErrPlainHTTP): the
// key and the conversation would cross the network in clear text.
// WithInsecureHTTP (WithResponsesInsecureHTTP) allows it, for a model
// server you trust on your own network; a local model server on this
// machine (http://localhost:11434/v1/) needs no option.
//
// A redirect is followed only within the endpoint's origin (scheme, host
// and port), at most 10, so that neither Authorization nor Azure's
// Api-Key (nor, with a 307, the conversation) goes to another server: a
// redirect elsewhere is an error naming both origins. The requests go
// through a copy of the client's HTTP client with that CheckRedirect; a
// client's CheckRedirect of its own is asked after it, about redirects
// within the origin only. The copy is made the first time a Model sees
// the client: a later change to that *http.Client's fields (Transport,
// Timeout, CheckRedirect) is not seen by the Model; build a new Model
// after changing it. A custom option.WithHTTPClient doer (not an
// *http.Client) follows redirects where the adapter cannot see them, so
// the key may go along to another origin: its answer from another origin
// is refused (an error saying so), but give the SDK an *http.Client to
// keep the key from going.
//
//	client := sdk.NewClient(option.WithAPIKey(os.Getenv("OPENAI_API_KEY")))
//	model := openai.New(client, "gpt-4.1")
//	tr, err := agent.Run(ctx, model, msgs, agent.Options{Executor: ex, Tools: []string{"get_weather"}})
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/internal/errtext"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/providers/internal/guard"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// ChatFormat is the agent.Message.RawFormat of the turns a Model returns
// (the name of the wire.OpenAIChat codec): the assistant message's role,
// content and tool_calls as the API sent them.
const ChatFormat = "openai_chat"

// Model is an agent.Model over the Chat Completions API of an OpenAI client.
// It holds no conversation state, so one Model may serve many runs at once.
type Model struct {
	client    sdk.Client
	model     string
	nonStrict bool
	params    func(*sdk.ChatCompletionNewParams)
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

// NonStrict sends tool schemas as they are, with "strict": false, instead
// of the strict-mode conversion (see registry.NonStrict).
func NonStrict() Option { return func(m *Model) { m.nonStrict = true } }

// WithParams lets fn adjust each request after the adapter has filled in
// the model, messages and tools (temperature, max tokens, tool choice, ...).
func WithParams(fn func(*sdk.ChatCompletionNewParams)) Option {
	return func(m *Model) { m.params = fn }
}

// WithStream streams the answer: fn receives each text delta of choice 0,
// the choice Next returns, as it arrives (another choice's deltas are not
// passed on); Next still returns the whole turn.
func WithStream(fn func(text string)) Option { return func(m *Model) { m.stream = fn } }

// New returns a Model that asks model (for example "gpt-4.1") through
// client. The client's options (API key, base URL, retries, HTTP client)
// apply unchanged.
func New(client sdk.Client, model string, opts ...Option) *Model {
	m := &Model{client: client, model: model, clients: &guard.Clients{}}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Provider names the provider for agent.Run, which stamps it on each call.
func (m *Model) Provider() string { return "openai" }

// Next sends the conversation and the tools and returns the model's reply:
// its text and its tool calls. An API error (an HTTP 4xx or 5xx after the
// SDK's own retries) comes back wrapping the SDK's *openai.Error, with the
// status, type, code and message the API gave.
func (m *Model) Next(ctx context.Context, conversation []agent.Message, tools []tool.Spec) (_ agent.Message, err error) {
	params, err := m.Request(conversation, tools)
	if err != nil {
		return agent.Message{}, err
	}
	var resp *sdk.ChatCompletion
	g, guarded := requestGuard(m.maxBytes, "openai.WithMaxResponseBytes", m.clients, m.insecureHTTP, "openai.WithInsecureHTTP()")
	// An answer refused below is the endpoint's too: its errors quote
	// its ids, which may echo the key, at any length.
	defer func() { err = g.Err(err) }()
	if m.stream == nil {
		resp, err = m.client.Chat.Completions.New(ctx, params, guarded...)
	} else {
		resp, err = m.streamed(ctx, params, guarded...)
	}
	if err != nil {
		return agent.Message{}, apiError(g, "chat completion", m.model, err) // guarded by the deferred g.Err
	}
	if resp == nil { // the body was JSON null
		return agent.Message{}, fmt.Errorf("openai: chat completion: the API sent no completion (null)")
	}
	if len(resp.Choices) == 0 {
		return agent.Message{}, fmt.Errorf("openai: chat completion %s has no choices", resp.ID)
	}
	msg := resp.Choices[0].Message
	raw := msg.RawJSON()
	if raw == "" { // an accumulated stream has no raw JSON of its own
		b, err := json.Marshal(msg)
		if err != nil {
			return agent.Message{}, fmt.Errorf("openai: chat completion %s: %w", resp.ID, err)
		}
		raw = string(b)
	}
	var body struct {
		ToolCalls json.RawMessage `json:"tool_calls"`
	}
	if err := json.Unmarshal([]byte(raw), &body); err != nil {
		return agent.Message{}, fmt.Errorf("openai: chat completion %s: the message is not a JSON object: %w", resp.ID, err)
	}
	// The calls are read from the message's tool_calls alone, the ones
	// that go back below: wire also reads a whole completion, so a message
	// with a "choices" field of its own would pass for one, and its nested
	// calls would run while the turn sent back shows others.
	toolCalls := body.ToolCalls
	if len(toolCalls) == 0 {
		toolCalls = json.RawMessage("null")
	}
	calls, err := wire.OpenAIChat.Calls(append(append([]byte(`{"tool_calls":`), toolCalls...), '}'))
	if err != nil {
		return agent.Message{}, fmt.Errorf("openai: chat completion %s: %w", resp.ID, err)
	}
	text := msg.Content
	if text == "" && msg.Refusal != "" {
		text = msg.Refusal
	}
	out := agent.Message{Role: agent.RoleAssistant, Text: text, Calls: calls}
	// Tool calls go back as they came, so a custom (free-text) tool call
	// stays custom instead of being rebuilt as a function call.
	if len(body.ToolCalls) > 0 && string(body.ToolCalls) != "null" {
		keep := map[string]any{"role": "assistant", "tool_calls": body.ToolCalls}
		if msg.Content != "" {
			keep["content"] = msg.Content
		}
		if b, err := json.Marshal(keep); err == nil {
			out.Raw, out.RawFormat = b, ChatFormat
		}
	}
	return out, nil
}

// streamed runs a streaming request, passing text deltas on as they come,
// and returns the completion the chunks add up to.
func (m *Model) streamed(ctx context.Context, params sdk.ChatCompletionNewParams, opts ...option.RequestOption) (*sdk.ChatCompletion, error) {
	stream := m.client.Chat.Completions.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var acc sdk.ChatCompletionAccumulator
	var calls streamCalls
	for n := 1; stream.Next(); n++ {
		chunk := stream.Current()
		if err := calls.add(chunk); err != nil {
			return nil, fmt.Errorf("stream chunk #%d: %w", n, err)
		}
		if !acc.AddChunk(chunk) {
			// Left out of the turn, it must not be shown either: what the
			// user watched and what the transcript records would differ.
			return nil, fmt.Errorf("stream chunk #%d (id %q) does not fit the chunks before it (another completion's id, a choice or tool-call index out of bounds, or past the accumulator's limits): the stream is broken", n, clipID(chunk.ID))
		}
		// The turn is choice 0 (Next): only its text is shown, wherever
		// it stands in the chunk. Another choice's text, first in its
		// chunk or alone, would be shown and never recorded.
		for _, c := range chunk.Choices {
			if c.Index == 0 && c.Delta.Content != "" {
				m.stream(c.Delta.Content)
			}
		}
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	return &acc.ChatCompletion, nil
}

// MaxStreamToolCalls bounds the tool calls a chat stream's chunks may add
// up to, over all its choices (a turn of more is refused by agent.Run
// anyway: DefaultMaxCallsPerTurn is 64). The SDK's accumulator grows a
// choice's calls to the index a delta names, up to 128 new calls for a
// delta of a few bytes, so without it an endpoint sending sparse indices
// made a stream the response bound allows take gigabytes.
const MaxStreamToolCalls = 1024

// streamCalls counts the tool calls a chat stream's chunks ask the
// accumulator for, per choice, as their indices name them.
type streamCalls struct {
	perChoice map[int64]int64
	total     int64
}

// add counts chunk's calls, refusing it, before the accumulator takes it
// in, when they would be more than MaxStreamToolCalls.
func (s *streamCalls) add(chunk sdk.ChatCompletionChunk) error {
	for _, c := range chunk.Choices {
		for _, tc := range c.Delta.ToolCalls {
			// The accumulator takes index -1 for 0 (a provider's single call).
			n := max(tc.Index, 0) + 1
			if n > MaxStreamToolCalls {
				return fmt.Errorf("a tool call delta of choice %d has index %d, over openai.MaxStreamToolCalls (%d): the stream is refused", c.Index, tc.Index, MaxStreamToolCalls)
			}
			if s.perChoice == nil {
				s.perChoice = map[int64]int64{}
			}
			if have := s.perChoice[c.Index]; n > have {
				s.total += n - have
				s.perChoice[c.Index] = n
			}
			if s.total > MaxStreamToolCalls {
				return fmt.Errorf("the stream's tool calls add up to more than openai.MaxStreamToolCalls (%d) over its choices: the stream is refused", MaxStreamToolCalls)
			}
		}
	}
	return nil
}

// clipID is an id the endpoint sent, cut short for an error's text where a
// character starts (textcut).
func clipID(id string) string {
	if len(id) > 64 {
		return textcut.Head(id, 64) + "..."
	}
	return id
}

// Request builds the request Next sends, so it can be inspected or logged.
func (m *Model) Request(conversation []agent.Message, tools []tool.Spec) (sdk.ChatCompletionNewParams, error) {
	params := sdk.ChatCompletionNewParams{Model: m.model}
	for i, msg := range conversation {
		converted, err := messages(msg)
		if err != nil {
			return params, fmt.Errorf("openai: message #%d (%s): %w", i, msg.Role, err)
		}
		params.Messages = append(params.Messages, converted...)
	}
	var exportOpts []registry.ExportOption
	if m.nonStrict {
		exportOpts = append(exportOpts, registry.NonStrict())
	}
	for _, spec := range tools {
		def, err := functionTool(spec, exportOpts)
		if err != nil {
			return params, err
		}
		params.Tools = append(params.Tools, def)
	}
	if m.params != nil {
		m.params(&params)
	}
	return params, nil
}

// messages converts one provider-neutral message. A tool message becomes
// one role "tool" message per result, as the API wants one per tool_call_id.
func messages(msg agent.Message) ([]sdk.ChatCompletionMessageParamUnion, error) {
	switch msg.Role {
	case agent.RoleSystem:
		return []sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage(msg.Text)}, nil
	case agent.RoleUser:
		return []sdk.ChatCompletionMessageParamUnion{sdk.UserMessage(msg.Text)}, nil
	case agent.RoleAssistant:
		if msg.RawFormat == ChatFormat && len(msg.Raw) > 0 {
			if !json.Valid(msg.Raw) {
				return nil, errors.New("raw assistant message is not JSON")
			}
			a := param.Override[sdk.ChatCompletionAssistantMessageParam](msg.Raw)
			return []sdk.ChatCompletionMessageParamUnion{{OfAssistant: &a}}, nil
		}
		var a sdk.ChatCompletionAssistantMessageParam
		if msg.Text != "" {
			a.Content.OfString = sdk.String(msg.Text)
		}
		for _, c := range msg.Calls {
			if c.ID == "" {
				return nil, fmt.Errorf("tool call to %q has no id: the result could not be matched to it", c.Name)
			}
			args := string(c.Args)
			if len(c.Args) == 0 {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
				},
			})
		}
		return []sdk.ChatCompletionMessageParamUnion{{OfAssistant: &a}}, nil
	case agent.RoleTool:
		out := make([]sdk.ChatCompletionMessageParamUnion, 0, len(msg.Results))
		for j, r := range msg.Results {
			if r == nil || r.CallID == "" {
				return nil, fmt.Errorf("result #%d has no call id: OpenAI needs tool_call_id to match it to its call", j)
			}
			out = append(out, sdk.ToolMessage(wire.Text(r), r.CallID))
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown role %q: use system, user, assistant or tool", msg.Role)
}

// functionTool renders a spec with the registry's OpenAI export, so the
// strict conversion and its fallback are the same as everywhere else.
func functionTool(spec tool.Spec, opts []registry.ExportOption) (sdk.ChatCompletionToolUnionParam, error) {
	raw, _, err := registry.ExportTool(registry.OpenAIChat, spec, opts...)
	if err != nil {
		return sdk.ChatCompletionToolUnionParam{}, fmt.Errorf("openai: tool %q: %w", spec.Name, err)
	}
	var def struct {
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
			Strict      bool           `json:"strict"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &def); err != nil {
		return sdk.ChatCompletionToolUnionParam{}, fmt.Errorf("openai: tool %q: export: %w", spec.Name, err)
	}
	fn := shared.FunctionDefinitionParam{
		Name:       def.Function.Name,
		Parameters: shared.FunctionParameters(def.Function.Parameters),
		Strict:     sdk.Bool(def.Function.Strict),
	}
	if def.Function.Description != "" {
		fn.Description = sdk.String(def.Function.Description)
	}
	return sdk.ChatCompletionFunctionTool(fn), nil
}

// apiError turns the SDK's error, whose text holds only the status, into
// one that also says what the API said and what to do. The SDK's errors,
// which the returned one wraps for errors.As, are made safe to print
// first (see scrub).
func apiError(g *guard.Guard, api, model string, err error) error {
	scrub(g, err)
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("openai: %s with model %q: %w", api, model, err)
	}
	detail := apiErr.Message
	if detail == "" {
		detail = apiErr.RawJSON()
	}
	hint := ""
	switch {
	case apiErr.StatusCode == 429:
		hint = " (rate limited or out of quota: the SDK's retries are spent; wait, or raise option.WithMaxRetries)"
	case apiErr.StatusCode == 401:
		hint = " (check the API key)"
	case apiErr.StatusCode >= 500:
		hint = " (server error: retry later)"
	}
	// The SDK's own text ("OpenAI API error: 429 Too Many Requests")
	// repeats the status said here: it is kept for errors.As, not printed.
	return errtext.New(fmt.Sprintf("openai: %s with model %q failed: HTTP %d, type %q, code %q: %s%s",
		api, model, apiErr.StatusCode, apiErr.Type, apiErr.Code, detail, hint), err)
}

// scrub makes the SDK's errors in err's chain safe to print: an *Error
// keeps the request, whose URL holds a base URL's password and whose
// DumpRequest prints the key's header unmasked, so it becomes a copy with
// both masked (guard.Request); the fields and body of an error the
// endpoint sent outside an error response (a stream's error event, a
// *ssestream.StreamError, which the guard did not see) are redacted.
func scrub(g *guard.Guard, err error) {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
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
		apiErr.Message, apiErr.Code, apiErr.Param, apiErr.Type = g.Text(apiErr.Message), g.Text(apiErr.Code), g.Text(apiErr.Param), g.Text(apiErr.Type)
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		streamErr.Message = g.Text(streamErr.Message)
		streamErr.Event.Data = []byte(g.Text(string(streamErr.Event.Data)))
	}
}
