package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/providers/internal/guard"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// ResponsesFormat is the agent.Message.RawFormat of the turns a
// ResponsesModel returns (the name of the wire.OpenAIResponses codec).
const ResponsesFormat = "openai_responses"

// ResponsesModel is an agent.Model over the Responses API. A model's turn
// is kept as its output items (agent.Message.Raw) and sent back as input
// items unchanged: reasoning items (with their encrypted content when the
// request asks for it), messages, function calls, and item types this
// adapter does not model (custom_tool_call, mcp_approval_request,
// shell_call, compaction, ...). It holds no conversation state and does not
// use previous_response_id, so it works with store=false.
type ResponsesModel struct {
	client    sdk.Client
	model     string
	nonStrict bool
	params    func(*responses.ResponseNewParams)
	stream    func(text string)
	maxBytes  int64
	// clients gives the copy of the client's HTTP client that follows
	// redirects only within the endpoint's origin (requestGuard).
	clients *guard.Clients
	// insecureHTTP allows http:// to a host other than this machine
	// (WithResponsesInsecureHTTP).
	insecureHTTP bool
}

var _ agent.Model = (*ResponsesModel)(nil)

// ResponsesOption configures a ResponsesModel.
type ResponsesOption func(*ResponsesModel)

// ResponsesNonStrict sends tool schemas as they are, with "strict": false.
func ResponsesNonStrict() ResponsesOption { return func(m *ResponsesModel) { m.nonStrict = true } }

// WithResponsesParams lets fn adjust each request after the adapter has
// filled in the model, input and tools (reasoning effort, include, store,
// ...).
func WithResponsesParams(fn func(*responses.ResponseNewParams)) ResponsesOption {
	return func(m *ResponsesModel) { m.params = fn }
}

// WithResponsesStream streams the answer: fn receives each output text
// delta as it arrives; Next still returns the whole turn. What fn receives
// adds up to the turn's text: text the final response has beyond the
// deltas is passed on at the end, and a stream whose deltas are not its
// response's text, that sends a second response, or text after it, is an
// error of Next.
func WithResponsesStream(fn func(text string)) ResponsesOption {
	return func(m *ResponsesModel) { m.stream = fn }
}

// NewResponses returns a ResponsesModel that asks model through client.
func NewResponses(client sdk.Client, model string, opts ...ResponsesOption) *ResponsesModel {
	m := &ResponsesModel{client: client, model: model, clients: &guard.Clients{}}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Provider names the provider for agent.Run, which stamps it on each call.
func (m *ResponsesModel) Provider() string { return "openai" }

// Next sends the conversation and the tools and returns the model's turn:
// its output text, its function calls, and its output items as Raw.
func (m *ResponsesModel) Next(ctx context.Context, conversation []agent.Message, tools []tool.Spec) (_ agent.Message, err error) {
	params, err := m.Request(conversation, tools)
	if err != nil {
		return agent.Message{}, err
	}
	var resp *responses.Response
	g, guarded := requestGuard(m.maxBytes, "openai.WithResponsesMaxResponseBytes", m.clients, m.insecureHTTP, "openai.WithResponsesInsecureHTTP()")
	// An answer refused below is the endpoint's too: its errors quote
	// its ids and a failed response's message, which may echo the key,
	// at any length.
	defer func() { err = g.Err(err) }()
	if m.stream == nil {
		resp, err = m.client.Responses.New(ctx, params, guarded...)
	} else {
		resp, err = m.streamed(ctx, params, guarded...)
	}
	if err != nil {
		return agent.Message{}, apiError(g, "response", m.model, err)
	}
	if resp == nil { // the body was JSON null
		return agent.Message{}, fmt.Errorf("openai: response: the API sent no response (null)")
	}
	var body struct {
		Output json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal([]byte(resp.RawJSON()), &body); err != nil {
		return agent.Message{}, fmt.Errorf("openai: response %s: %w", resp.ID, err)
	}
	if resp.Status == responses.ResponseStatusFailed && resp.Error.Message != "" {
		return agent.Message{}, fmt.Errorf("openai: response %s failed: %s: %s", resp.ID, resp.Error.Code, resp.Error.Message)
	}
	calls, err := wire.OpenAIResponses.Calls([]byte(resp.RawJSON()))
	if err != nil {
		return agent.Message{}, fmt.Errorf("openai: response %s: %w", resp.ID, err)
	}
	return agent.Message{Role: agent.RoleAssistant, Text: resp.OutputText(), Calls: calls, Raw: body.Output, RawFormat: ResponsesFormat}, nil
}

// streamed runs a streaming request, passing text deltas on, and returns
// the response of the final event.
func (m *ResponsesModel) streamed(ctx context.Context, params responses.ResponseNewParams, opts ...option.RequestOption) (*responses.Response, error) {
	stream := m.client.Responses.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var final *responses.Response
	// The deltas are shown as they come, but the turn is the final
	// event's response, which the endpoint writes apart from them: what
	// the user watched and what the transcript records must be one text.
	var shown strings.Builder
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.output_text.delta":
			if final != nil {
				return nil, fmt.Errorf("stream: text after the response's %s event: the stream is broken", clipID(string(final.Status)))
			}
			if ev.Delta != "" {
				shown.WriteString(ev.Delta)
				m.stream(ev.Delta)
			}
		case "response.completed", "response.incomplete", "response.failed":
			if final != nil {
				return nil, fmt.Errorf("stream: a second response (%s after %s): the stream is broken", clipID(ev.Type), clipID(string(final.Status)))
			}
			r := ev.Response
			final = &r
		}
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	if final == nil {
		return nil, fmt.Errorf("the stream ended without a response.completed event")
	}
	// A server may send the text with the response alone, or only its
	// start as deltas: the rest is shown now. Deltas that are not the
	// response's text are an error.
	text := final.OutputText()
	rest, ok := strings.CutPrefix(text, shown.String())
	if !ok {
		return nil, fmt.Errorf("stream: the text of the deltas (%d bytes) is not the response's text (%d bytes): the stream is broken", shown.Len(), len(text))
	}
	if rest != "" {
		m.stream(rest)
	}
	return final, nil
}

// Request builds the request Next sends, so it can be inspected or logged.
func (m *ResponsesModel) Request(conversation []agent.Message, tools []tool.Spec) (responses.ResponseNewParams, error) {
	params := responses.ResponseNewParams{Model: shared.ResponsesModel(m.model)}
	var items responses.ResponseInputParam
	var instructions []string
	for i, msg := range conversation {
		if msg.Role == agent.RoleSystem {
			instructions = append(instructions, msg.Text)
			continue
		}
		converted, err := inputItems(msg)
		if err != nil {
			return params, fmt.Errorf("openai: message #%d (%s): %w", i, msg.Role, err)
		}
		items = append(items, converted...)
	}
	if len(instructions) > 0 {
		params.Instructions = param.NewOpt(strings.Join(instructions, "\n\n"))
	}
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	var exportOpts []registry.ExportOption
	if m.nonStrict {
		exportOpts = append(exportOpts, registry.NonStrict())
	}
	for _, spec := range tools {
		raw, _, err := registry.ExportTool(registry.OpenAIResponses, spec, exportOpts...)
		if err != nil {
			return params, fmt.Errorf("openai: tool %q: %w", spec.Name, err)
		}
		var def struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
			Strict      bool           `json:"strict"`
		}
		if err := json.Unmarshal(raw, &def); err != nil {
			return params, fmt.Errorf("openai: tool %q: export: %w", spec.Name, err)
		}
		t := responses.ToolParamOfFunction(def.Name, def.Parameters, def.Strict)
		if def.Description != "" {
			t.OfFunction.Description = param.NewOpt(def.Description)
		}
		params.Tools = append(params.Tools, t)
	}
	if m.params != nil {
		m.params(&params)
	}
	return params, nil
}

func inputItems(msg agent.Message) ([]responses.ResponseInputItemUnionParam, error) {
	switch msg.Role {
	case agent.RoleUser:
		return []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage(msg.Text, responses.EasyInputMessageRoleUser)}, nil
	case agent.RoleAssistant:
		if msg.RawFormat == ResponsesFormat && len(msg.Raw) > 0 {
			var raws []json.RawMessage
			if err := json.Unmarshal(msg.Raw, &raws); err != nil {
				return nil, fmt.Errorf("raw output items are not a JSON array: %w", err)
			}
			out := make([]responses.ResponseInputItemUnionParam, 0, len(raws))
			for _, r := range raws {
				// Each output item goes back byte for byte, whatever its
				// type: the union sends the one member set, and that member
				// sends the raw item.
				item := param.Override[responses.EasyInputMessageParam](r)
				out = append(out, responses.ResponseInputItemUnionParam{OfMessage: &item})
			}
			return out, nil
		}
		var out []responses.ResponseInputItemUnionParam
		if msg.Text != "" {
			out = append(out, responses.ResponseInputItemParamOfMessage(msg.Text, responses.EasyInputMessageRoleAssistant))
		}
		for _, c := range msg.Calls {
			if c.ID == "" {
				return nil, fmt.Errorf("tool call to %q has no id: the result could not be matched to it", c.Name)
			}
			args := string(c.Args)
			if len(c.Args) == 0 {
				args = "{}"
			}
			out = append(out, responses.ResponseInputItemParamOfFunctionCall(args, c.ID, c.Name))
		}
		return out, nil
	case agent.RoleTool:
		out := make([]responses.ResponseInputItemUnionParam, 0, len(msg.Results))
		for j, r := range msg.Results {
			if r == nil || r.CallID == "" {
				return nil, fmt.Errorf("result #%d has no call id: OpenAI needs call_id to match it to its call", j)
			}
			item := responses.ResponseInputItemParamOfFunctionCallOutput(wire.Text(r))
			item.OfFunctionCallOutput.CallID = param.NewOpt(r.CallID)
			out = append(out, item)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown role %q: use system, user, assistant or tool", msg.Role)
}
