// Package gemini adapts Google's Gen AI Go SDK (google.golang.org/genai)
// to agent.Model, over generateContent (the Gemini API or Vertex AI,
// whichever the client is configured for).
//
// It is its own Go module, so the Toolbelt module does not depend on the
// SDK.
//
// What it sends: the system messages as the system instruction, the
// conversation as contents (user text; the model's turn as it came, thought
// parts and thought signatures included; one user content of
// functionResponse parts per tool message, rendered by wire.Gemini), and
// the offered tools as registry.ExportTool renders them for Gemini. What it
// returns: the first candidate's text (thoughts left out) and function
// calls, read with wire.Gemini, and the candidate's content as
// agent.Message.Raw, which the next turn sends back unchanged: Gemini
// refuses a turn whose function calls lost their thought signatures.
//
// What an endpoint sends back is untrusted (a proxy, a man in the
// middle): the client's API key, the credential headers of its
// HTTPOptions (an Authorization: Bearer token) and its base URL's
// password are redacted as "[REDACTED]" from the text of the errors Next
// returns (as they are or encoded: JSON escapes, percent-encoding, hex,
// base64), and that text is bounded. The errors they wrap are safe to
// print too: the genai.APIError kept for errors.As is a copy with its
// Message, Status and Details redacted, and an SDK error whose text held
// a credential (a body that is not JSON, a stream's chunk) is not kept,
// only its redacted text.
//
// A base URL http:// to a host that is not this machine (localhost,
// 127.0.0.0/8, ::1), the client's or a request config's, is refused
// before anything is sent (ErrPlainHTTP): the key and the conversation
// would cross the network in clear text. WithInsecureHTTP allows it, for a
// server you trust on your own network. The genai SDK
// reads a response body whole and has no per-request hook, so the bound
// on a body is the HTTP client's: build the client with HTTPClient (its
// bytes, and at most MaxResponseElements array elements and
// MaxResponseMembers object members in an answer or a stream's event).
//
//	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: os.Getenv("GEMINI_API_KEY"), HTTPClient: gemini.HTTPClient(nil, 0)})
//	model := gemini.New(client, "gemini-2.5-flash")
//	tr, err := agent.Run(ctx, model, msgs, agent.Options{Executor: ex, Tools: []string{"get_weather"}})
package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/internal/errtext"
	"github.com/toolbelt-go/toolbelt/providers/internal/guard"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Format is the agent.Message.RawFormat of the turns this adapter returns.
const Format = "gemini"

// Model is an agent.Model over a genai client. It holds no conversation
// state, so one Model may serve many runs at once.
type Model struct {
	client *genai.Client
	model  string
	config func(*genai.GenerateContentConfig)
	stream func(text string)
	// insecureHTTP allows http:// to a host other than this machine
	// (WithInsecureHTTP).
	insecureHTTP bool
}

var _ agent.Model = (*Model)(nil)

// Option configures a Model.
type Option func(*Model)

// WithConfig lets fn adjust each request's config after the adapter has
// filled in the system instruction and tools (thinking, temperature, tool
// config, safety settings, ...).
func WithConfig(fn func(*genai.GenerateContentConfig)) Option {
	return func(m *Model) { m.config = fn }
}

// WithStream streams the answer: fn receives each piece of text (not
// thoughts) as it arrives; Next still returns the whole turn.
func WithStream(fn func(text string)) Option { return func(m *Model) { m.stream = fn } }

// New returns a Model that asks model (for example "gemini-2.5-flash")
// through client.
func New(client *genai.Client, model string, opts ...Option) *Model {
	m := &Model{client: client, model: model}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Provider names the provider for agent.Run, which stamps it on each call.
func (m *Model) Provider() string { return "gemini" }

// Next sends the conversation and the tools and returns the model's turn.
// An API error wraps the SDK's genai.APIError and says the status and what
// the API said; a candidate without content (finish reason
// MALFORMED_FUNCTION_CALL, SAFETY, ...) is an error naming the reason.
func (m *Model) Next(ctx context.Context, conversation []agent.Message, tools []tool.Spec) (agent.Message, error) {
	contents, config, err := m.Request(conversation, tools)
	if err != nil {
		return agent.Message{}, err
	}
	g := m.guard(config)
	if err := m.checkScheme(config); err != nil {
		return agent.Message{}, m.clean(g, err, nil)
	}
	var cand *genai.Candidate
	ctx, cut := guard.Watch(ctx)
	if m.stream == nil {
		resp, err := m.generate(ctx, g, contents, config)
		if err != nil {
			return agent.Message{}, m.clean(g, err, cut())
		}
		if len(resp.Candidates) == 0 {
			return agent.Message{}, m.clean(g, noCandidate(resp), nil)
		}
		cand = resp.Candidates[0]
	} else {
		cand, err = m.streamed(ctx, g, contents, config)
		if err != nil {
			return agent.Message{}, m.clean(g, err, cut())
		}
	}
	if cand == nil {
		return agent.Message{}, fmt.Errorf("gemini: model %q: the first candidate is null", m.model)
	}
	msg, err := turn(cand)
	if err != nil {
		// The answer is the endpoint's: the error quotes its finish
		// message and call ids, which may echo the key, at any length.
		return agent.Message{}, m.clean(g, err, nil)
	}
	return msg, nil
}

// generate runs a request without streaming.
func (m *Model) generate(ctx context.Context, g *guard.Guard, contents []*genai.Content, config *genai.GenerateContentConfig) (resp *genai.GenerateContentResponse, err error) {
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, sdkPanic(m.model, r)
		}
	}()
	resp, err = m.client.Models.GenerateContent(ctx, m.model, contents, config)
	if err != nil {
		return nil, apiError(g, m.model, err)
	}
	if resp == nil {
		return nil, fmt.Errorf("gemini: model %q: the API sent no response", m.model)
	}
	return resp, nil
}

// sdkPanic is the error for a panic of the genai SDK, which panics on some
// malformed answers (a null body, a null candidate): an API endpoint must
// not be able to crash the process.
func sdkPanic(model string, r any) error {
	return fmt.Errorf("gemini: model %q: the SDK could not read the API's answer (it panicked: %v)", model, r)
}

// streamed runs a streaming request and joins the chunks' parts into one
// candidate, passing text to the stream callback as it comes.
func (m *Model) streamed(ctx context.Context, g *guard.Guard, contents []*genai.Content, config *genai.GenerateContentConfig) (_ *genai.Candidate, err error) {
	inCallback := false // a panic of the stream callback is the caller's own
	defer func() {
		if r := recover(); r != nil {
			if inCallback {
				panic(r)
			}
			err = sdkPanic(m.model, r)
		}
	}()
	joined := &genai.Candidate{Content: &genai.Content{Role: genai.RoleModel}}
	got := false
	for resp, err := range m.client.Models.GenerateContentStream(ctx, m.model, contents, config) {
		if err != nil {
			return nil, apiError(g, m.model, err)
		}
		if resp == nil {
			continue
		}
		if len(resp.Candidates) == 0 {
			if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
				return nil, noCandidate(resp)
			}
			continue
		}
		c := resp.Candidates[0]
		if c == nil {
			return nil, fmt.Errorf("gemini: model %q: a chunk's first candidate is null", m.model)
		}
		got = true
		if c.FinishReason != "" {
			joined.FinishReason, joined.FinishMessage = c.FinishReason, c.FinishMessage
		}
		if c.Content == nil {
			continue
		}
		for _, p := range c.Content.Parts {
			if p == nil {
				continue
			}
			if p.Text != "" && !p.Thought {
				inCallback = true
				m.stream(p.Text)
				inCallback = false
			}
			joined.Content.Parts = append(joined.Content.Parts, p)
		}
	}
	if !got {
		return nil, fmt.Errorf("gemini: model %q: the stream ended without a candidate", m.model)
	}
	if len(joined.Content.Parts) == 0 {
		joined.Content = nil
	}
	return joined, nil
}

// turn converts a candidate into an assistant message with its content
// kept as Raw.
func turn(cand *genai.Candidate) (agent.Message, error) {
	raw, err := json.Marshal(cand)
	if err != nil {
		return agent.Message{}, fmt.Errorf("gemini: candidate: %w", err)
	}
	calls, err := wire.Gemini.Calls([]byte(`{"candidates":[` + string(raw) + `]}`))
	if err != nil {
		return agent.Message{}, fmt.Errorf("gemini: %w", err)
	}
	msg := agent.Message{Role: agent.RoleAssistant, Calls: calls}
	if cand.Content == nil {
		return msg, nil
	}
	var text strings.Builder
	for _, p := range cand.Content.Parts {
		if p != nil && !p.Thought {
			text.WriteString(p.Text)
		}
	}
	msg.Text = text.String()
	msg.Raw, err = json.Marshal(cand.Content)
	if err != nil {
		return agent.Message{}, fmt.Errorf("gemini: candidate content: %w", err)
	}
	msg.RawFormat = Format
	return msg, nil
}

func noCandidate(resp *genai.GenerateContentResponse) error {
	if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
		return fmt.Errorf("gemini: the prompt was blocked: %s %s", resp.PromptFeedback.BlockReason, resp.PromptFeedback.BlockReasonMessage)
	}
	return fmt.Errorf("gemini: response %s has no candidates", resp.ResponseID)
}

// Request builds the contents and config Next sends, so they can be
// inspected or logged.
func (m *Model) Request(conversation []agent.Message, tools []tool.Spec) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	config := &genai.GenerateContentConfig{}
	var contents []*genai.Content
	var system []string
	for i, msg := range conversation {
		c, err := content(msg)
		if err != nil {
			return nil, nil, fmt.Errorf("gemini: message #%d (%s): %w", i, msg.Role, err)
		}
		if msg.Role == agent.RoleSystem {
			system = append(system, msg.Text)
			continue
		}
		contents = append(contents, c)
	}
	if len(system) > 0 {
		config.SystemInstruction = genai.NewContentFromText(strings.Join(system, "\n\n"), genai.RoleUser)
	}
	if len(tools) > 0 {
		t := &genai.Tool{}
		for _, spec := range tools {
			decl, err := declaration(spec)
			if err != nil {
				return nil, nil, err
			}
			if decl != nil {
				t.FunctionDeclarations = append(t.FunctionDeclarations, decl)
			}
		}
		if len(t.FunctionDeclarations) > 0 {
			config.Tools = []*genai.Tool{t}
		}
	}
	if m.config != nil {
		m.config(config)
	}
	return contents, config, nil
}

func content(msg agent.Message) (*genai.Content, error) {
	switch msg.Role {
	case agent.RoleSystem:
		return nil, nil
	case agent.RoleUser:
		return genai.NewContentFromText(msg.Text, genai.RoleUser), nil
	case agent.RoleAssistant:
		if msg.RawFormat == Format && len(msg.Raw) > 0 {
			var c genai.Content
			if err := json.Unmarshal(msg.Raw, &c); err != nil {
				return nil, fmt.Errorf("raw gemini content: %w", err)
			}
			c.Role = genai.RoleModel
			return &c, nil
		}
		c := &genai.Content{Role: genai.RoleModel}
		if msg.Text != "" {
			c.Parts = append(c.Parts, genai.NewPartFromText(msg.Text))
		}
		for _, call := range msg.Calls {
			var args map[string]any
			if len(call.Args) > 0 {
				if err := json.Unmarshal(call.Args, &args); err != nil {
					return nil, fmt.Errorf("tool call %q: arguments are not a JSON object: %w", call.Name, err)
				}
			}
			fc := &genai.FunctionCall{Name: call.Name, Args: args}
			if !strings.HasPrefix(call.ID, call.Name+"#") {
				fc.ID = call.ID
			}
			c.Parts = append(c.Parts, &genai.Part{FunctionCall: fc})
		}
		return c, nil
	case agent.RoleTool:
		payload, err := wire.Gemini.Results(msg.Results)
		if err != nil {
			return nil, err
		}
		var c genai.Content
		if err := json.Unmarshal(payload, &c); err != nil {
			return nil, fmt.Errorf("function responses: %w", err)
		}
		return &c, nil
	}
	return nil, fmt.Errorf("unknown role %q: use system, user, assistant or tool", msg.Role)
}

// declaration renders a spec with the registry's Gemini export (so the
// conversion and its notes are the same as everywhere else), with the type
// names as the SDK's genai.Type constants. A tool the export leaves out
// (its required input cannot be expressed) is not offered.
func declaration(spec tool.Spec) (*genai.FunctionDeclaration, error) {
	raw, _, err := registry.ExportTool(registry.Gemini, spec)
	if err != nil {
		return nil, fmt.Errorf("gemini: tool %q: %w", spec.Name, err)
	}
	if raw == nil {
		return nil, nil
	}
	var decl genai.FunctionDeclaration
	if err := json.Unmarshal(raw, &decl); err != nil {
		return nil, fmt.Errorf("gemini: tool %q: export: %w", spec.Name, err)
	}
	upperTypes(decl.Parameters)
	return &decl, nil
}

func upperTypes(s *genai.Schema) {
	if s == nil {
		return
	}
	s.Type = genai.Type(strings.ToUpper(string(s.Type)))
	for _, p := range s.Properties {
		upperTypes(p)
	}
	upperTypes(s.Items)
	for _, a := range s.AnyOf {
		upperTypes(a)
	}
}

// apiError says what the API answered, keeping the SDK's error to match
// with errors.As. That error is the endpoint's words (its Message,
// Status and Details, a body that is not JSON whole), which may echo the
// credentials: the kept copy has them redacted (g), so that a caller who
// logs what errors.As gives does not print them.
func apiError(g *guard.Guard, model string, err error) error {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		// The SDK's other errors quote what the endpoint sent (a body
		// that is not JSON, a stream's chunk): one whose text holds a
		// credential is not kept, only its redacted text.
		if text := err.Error(); g.Text(text) != text {
			return fmt.Errorf("gemini: generateContent with model %q: %s", model, g.Text(text))
		}
		return fmt.Errorf("gemini: generateContent with model %q: %w", model, err)
	}
	apiErr.Message, apiErr.Status = g.Text(apiErr.Message), g.Text(apiErr.Status)
	if len(apiErr.Details) > 0 {
		var details []map[string]any
		if d, jerr := json.Marshal(apiErr.Details); jerr == nil && json.Unmarshal([]byte(g.Text(string(d))), &details) == nil {
			apiErr.Details = details
		} else {
			apiErr.Details = nil
		}
	}
	// The returned error wraps the redacted copy alone: the SDK's error
	// (and any wrapping of it) is not kept.
	err = apiErr
	hint := ""
	switch {
	case apiErr.Code == 429:
		hint = " (rate limited or out of quota: wait and retry)"
	case apiErr.Code == 400 && strings.Contains(apiErr.Message, "API key"):
		hint = " (check the API key)"
	case apiErr.Code >= 500:
		hint = " (server error: retry later)"
	}
	text := fmt.Sprintf("gemini: generateContent with model %q failed: HTTP %d %s: %s%s", model, apiErr.Code, apiErr.Status, apiErr.Message, hint)
	if len(apiErr.Details) > 0 {
		if d, jerr := json.Marshal(apiErr.Details); jerr == nil {
			text += "; details: " + string(d)
		}
	}
	// The SDK's own text repeats the code, status and message said above,
	// so it is kept for errors.As, not printed.
	return errtext.New(text, err)
}
