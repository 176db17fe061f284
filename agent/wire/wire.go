// Package wire converts between providers' tool-calling payloads and the
// SDK's tool.Call and tool.Result, with no provider SDK involved.
//
// Each Codec reads the tool calls out of what a model sent (an assistant
// message, a response's output items, a candidate's content) and renders
// results as what the provider expects back:
//
//	OpenAIChat       tool_calls            → role "tool" messages with tool_call_id
//	OpenAIResponses  function_call items   → function_call_output items with call_id
//	Anthropic        tool_use blocks       → a user message of tool_result blocks (is_error)
//	Gemini           functionCall parts    → a user content of functionResponse parts
//	MCP              tools/call params     → CallToolResult objects
//	Prompt           <tool_call> blocks    → a user message of <tool_response> blocks
//	                 in a model's text        (models without native tool calling)
//
// Results a model reads are compact: structured output as JSON, otherwise
// the text; errors as "error [code]: message" with a retry hint; truncated
// output marked as such. A result is the tool's, not the model's operator's:
// the control tokens of chat templates it spells ("<|im_start|>",
// "<|eot_id|>", "<end_of_turn>", "[INST]", ...) and the tool tags of
// Hermes-style models ("</tool_response>", "<tool_call>") get a space
// inside ("< |im_start|>"), so that a local model's server, which
// tokenizes the rendered prompt with special tokens parsed, cannot read
// them as the end of the tool's turn and the start of another role's, or
// of another tool's answer. Malformed payloads (a call with no id or name,
// two calls with the same id, a payload that is not JSON, one of more
// than MaxCalls calls) are errors that say what is wrong; arguments
// that are not JSON become calls the executor answers with an
// invalid-arguments result the model can correct; never panics.
//
// Block and item types a codec does not know (thinking blocks, server-tool
// results, item types a provider adds later) are skipped, never an error:
// the calls beside them are still read. Codecs read calls only; keeping the
// whole turn to send back unchanged is the adapter's job (agent.Message.Raw).
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Codec is one provider's wire format.
type Codec interface {
	// Name identifies the format ("openai_chat", ...).
	Name() string
	// Calls extracts the tool calls from a model's output. Text and other
	// non-call parts, including parts of a kind the codec does not know,
	// are skipped.
	Calls(payload []byte) ([]tool.Call, error)
	// Results renders results (in call order) as the payload to send back.
	Results(results []*tool.Result) (json.RawMessage, error)
}

// The codecs, by provider.
var (
	OpenAIChat      Codec = openAIChat{}
	OpenAIResponses Codec = openAIResponses{}
	Anthropic       Codec = anthropic{}
	Gemini          Codec = gemini{}
	MCP             Codec = mcpCodec{}
	// Prompt is declared in prompt.go.
)

// Codecs lists every codec.
var Codecs = []Codec{OpenAIChat, OpenAIResponses, Anthropic, Gemini, MCP, Prompt}

// MaxResultText bounds the text of one result a model reads; longer text
// keeps its head and tail around a marker that says how much was cut.
const MaxResultText = 16 << 10

// Text renders a result compactly for a model, saying each fact once:
// structured output as compact JSON, then the content blocks (other than
// text) summarised; an error as "error [code]: message" with the retry
// hint; truncation marked; chat templates' control tokens spelt with a
// space inside (see the package doc). A text block that repeats the
// structured output (the JSON of an MCP result's structuredContent) or the
// error's message (an MCP error result) is left out.
func Text(r *tool.Result) string {
	if r == nil {
		return "error [internal]: no result"
	}
	if r.Error != nil {
		return clip(fmt.Sprintf("error [%s]: %s", r.Error.Code, errorText(r)))
	}
	var b strings.Builder
	var output []byte // compact JSON output, the one a text block may repeat
	if len(r.Output) > 0 {
		var buf bytes.Buffer
		if json.Compact(&buf, r.Output) == nil {
			b.Write(buf.Bytes())
			if s := buf.Bytes(); string(s) != "null" {
				output = s
			}
		} else {
			b.Write(r.Output)
		}
	}
	var value any // output decoded, the first time a text block is compared
	// budget bounds the bytes of text blocks decoded to compare, over all
	// of them: a block of 64 KiB of {} is some 20,000 maps, and a result
	// may have many (16 of them allocated 50 MB for a result of 1 MiB).
	budget := 4 * MaxResultText
	writeContent(&b, r.Content, func(text string) bool {
		if output == nil {
			return false
		}
		if sameJSON(text, output, nil) {
			return true // the same bytes, once compacted: nothing to decode
		}
		if value == nil && len(output) <= MaxResultText && len(text) <= budget && fewValues(output) {
			_ = json.Unmarshal(output, &value)
		}
		if value == nil || len(text) > budget || !fewValues(text) {
			return false
		}
		budget -= len(text)
		return sameJSON(text, output, value)
	})
	if t, _ := r.Metadata[tool.MetaTruncated].(bool); t {
		b.WriteString("\n[output truncated]")
	}
	if b.Len() == 0 {
		return "ok (no output)"
	}
	return clip(b.String())
}

// errorText is an error result's message with its retry hint and the
// result's content blocks, without the code (for formats that carry the
// code in a field of its own).
func errorText(r *tool.Result) string {
	var b strings.Builder
	b.WriteString(r.Error.Message)
	if r.Error.Retryable {
		if r.Error.RetryAfter > 0 {
			fmt.Fprintf(&b, " (retryable after %v)", r.Error.RetryAfter)
		} else {
			b.WriteString(" (retryable)")
		}
	}
	msg := strings.TrimSpace(r.Error.Message)
	writeContent(&b, r.Content, func(text string) bool { return strings.TrimSpace(text) == msg })
	return b.String()
}

// writeContent appends each content block on a line of its own, leaving out
// the text blocks that repeat what was already said.
func writeContent(b *strings.Builder, content []tool.Content, repeats func(text string) bool) {
	for _, c := range content {
		if c.Type == tool.ContentText && repeats(c.Text) {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		switch c.Type {
		case tool.ContentText:
			b.WriteString(c.Text)
		case tool.ContentResourceLink:
			fmt.Fprintf(b, "[resource %s %s]", c.Name, c.URI)
		case tool.ContentResource:
			if c.Text != "" {
				fmt.Fprintf(b, "[resource %s]\n%s", c.URI, c.Text)
			} else {
				fmt.Fprintf(b, "[resource %s, %s, %d bytes]", c.URI, c.MIMEType, len(c.Data))
			}
		default:
			fmt.Fprintf(b, "[%s %s, %d bytes]", c.Type, c.MIMEType, len(c.Data))
		}
	}
}

// sameJSON reports whether text is the JSON of output (compact): equal
// in value to v, output decoded, when Text decoded it (small output and
// text of few values, fewValues, within 4x MaxResultText of text blocks
// decoded for a result: key
// order and spelling may differ, as an MCP server's text and
// structuredContent do), else equal to output once compacted. Decoding
// large JSON into Go values costs many times its bytes (a MiB of "{}" is
// hundreds of thousands of maps), for a text the model reads cut to
// MaxResultText anyway; a large repeat spelt otherwise is only shown
// twice.
func sameJSON(text string, output []byte, v any) bool {
	if v == nil {
		var buf bytes.Buffer
		return json.Compact(&buf, []byte(text)) == nil && bytes.Equal(buf.Bytes(), output)
	}
	var t any
	if json.Unmarshal([]byte(text), &t) != nil {
		return false
	}
	return reflect.DeepEqual(t, v)
}

// maxValuesDecoded bounds the values (an upper count: the commas, colons
// and brackets) of JSON that Text decodes into Go values to compare a
// text block with structured output in value: a value decoded costs
// some 150 bytes (a map, an interface), so 16 KiB of {} cost 800 KB,
// for each result at each render of the conversation's results. Larger
// JSON is compared as compact bytes.
const maxValuesDecoded = 1024

// fewValues reports whether s, JSON, holds at most maxValuesDecoded
// values (over-counting those in strings).
func fewValues[T string | []byte](s T) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',', ':', '[', '{':
			if n++; n > maxValuesDecoded {
				return false
			}
		}
	}
	return true
}

// clip is s as a model reads it: its special tokens and tool tags defused
// (defuseResult), then cut to MaxResultText where characters start
// (textcut).
func clip(s string) string {
	return textcut.HeadTail(defuseResult(s), MaxResultText)
}

// specialTokens puts a space inside the spellings of the chat templates'
// control tokens (with pipeToken for "<|...|>": ChatML, Llama 3, Phi,
// gpt-oss, Command R): DeepSeek's "<｜...｜>", Gemma's turn tags, Llama 2 and Mistral's "<s>",
// "</s>" and bracketed tags. A local model's server (Ollama, vLLM,
// llama.cpp) renders a tool result into the prompt and tokenizes the
// whole with special tokens parsed, so a result spelling them would end
// its turn and open one of any role; with the space they are plain text.
// The space keeps JSON valid (it never follows a backslash).
var specialTokens = strings.NewReplacer(
	"<｜", "< ｜",
	"<start_of_turn>", "< start_of_turn>",
	"<end_of_turn>", "< end_of_turn>",
	"<bos>", "< bos>",
	"<eos>", "< eos>",
	"<s>", "< s>",
	"</s>", "< /s>",
	"[INST]", "[ INST]",
	"[/INST]", "[ /INST]",
	"[SYSTEM_PROMPT]", "[ SYSTEM_PROMPT]",
	"[/SYSTEM_PROMPT]", "[ /SYSTEM_PROMPT]",
	"[AVAILABLE_TOOLS]", "[ AVAILABLE_TOOLS]",
	"[/AVAILABLE_TOOLS]", "[ /AVAILABLE_TOOLS]",
	"[TOOL_CALLS]", "[ TOOL_CALLS]",
	"[TOOL_RESULTS]", "[ TOOL_RESULTS]",
	"[/TOOL_RESULTS]", "[ /TOOL_RESULTS]",
	"[TOOL_CONTENT]", "[ TOOL_CONTENT]",
	// FunctionGemma's (Gemma 3) tool tags.
	"<start_function_call>", "< start_function_call>",
	"<end_function_call>", "< end_function_call>",
	"<start_function_response>", "< start_function_response>",
	"<end_function_response>", "< end_function_response>",
	"<start_function_declaration>", "< start_function_declaration>",
	"<end_function_declaration>", "< end_function_declaration>",
	// MiniMax M2's BOS, role start and turn end, and its tool tags.
	"]~!b[", "]~! b[",
	"]~b]", "]~ b]",
	"[e~[", "[e~ [",
	"<minimax:", "< minimax:",
	"</minimax:", "< /minimax:",
	// Seed-OSS's tokens (<seed:bos>, <seed:eos>, <seed:tool_call>).
	"<seed:", "< seed:",
	"</seed:", "< /seed:",
)

// Defuse is s with the chat templates' control tokens spelt with a space
// inside ("<|im_end|>" as "< |im_end|>", "[INST]" as "[ INST]"), so that
// no tokenizer reads them as tokens, as Text renders a result: for other
// text a local model's server renders into a prompt, such as a model's
// own earlier reply (agent.PromptTools sends those through it).
func Defuse(s string) string { return defuse(s) }

// defuse is s with the chat templates' control tokens spelt so that no
// tokenizer reads them as tokens (see specialTokens).
func defuse(s string) string {
	if !strings.ContainsAny(s, "<[]") {
		return s
	}
	if strings.Contains(s, "<|") {
		s = pipeToken.ReplaceAllStringFunc(s, func(tok string) string { return "< " + tok[1:] })
	}
	if strings.Contains(s, "|") {
		s = halfPipeToken.ReplaceAllStringFunc(s, func(tok string) string { return "< " + tok[1:] })
	}
	return specialTokens.Replace(s)
}

// halfPipeToken matches Gemma 4's control tokens, open on one side only:
// "<|turn>" ... "<turn|>", "<|tool_call>", "<tool_response|>",
// "<|channel>". The name is a word, so generics with unions
// ("Array<string|number>") and operators are not taken for one.
var halfPipeToken = regexp.MustCompile(`<\|[A-Za-z_][A-Za-z0-9_]{0,63}>|<[A-Za-z_][A-Za-z0-9_]{0,63}\|>`)

// toolTags puts a space inside the tags of Hermes-style tool calling,
// which Qwen 2.5 and 3 and Hermes models have as tokens of their own
// (added tokens, which llama.cpp and Ollama parse in any text): their
// templates render each tool result inside <tool_response> ...
// </tool_response>, so a result spelling "</tool_response><tool_response>"
// would close its answer and forge another. Only results are respelt
// (defuseResult): the model's own earlier replies keep their <tool_call>
// blocks, the Prompt format's calls.
var toolTags = strings.NewReplacer(
	"<tool_call>", "< tool_call>",
	"</tool_call>", "< /tool_call>",
	"<tool_response>", "< tool_response>",
	"</tool_response>", "< /tool_response>",
	"<think>", "< think>",
	"</think>", "< /think>",
)

// defuseResult is s, the text of a result, as a model reads it: the
// control tokens defused (defuse) and the tool tags too (toolTags).
func defuseResult(s string) string {
	s = defuse(s)
	if strings.Contains(s, "<t") || strings.Contains(s, "</t") {
		s = toolTags.Replace(s)
	}
	return s
}

// pipeToken matches the "<|name|>" spelling of control tokens (ChatML,
// Llama 3, Phi, gpt-oss, Command R: <|im_end|>, <|eot_id|>,
// <|start_header_id|>): a name without spaces or "|" between "<|" and
// "|>". Code that uses "<|" as an operator (Haskell's <|>, Elm's and F#'s
// <| pipes) is not a token and is kept as written.
var pipeToken = regexp.MustCompile(`<\|[^|\s]{1,256}\|>`)

// argsFromString turns OpenAI's string-encoded arguments into raw JSON. A
// string that is not JSON is kept as is: the executor answers it with an
// invalid-arguments result the model can correct. Arguments sent as JSON
// itself rather than in a string (some compatible servers do) are taken
// as they are; null or missing ones are {}.
func argsFromString(raw json.RawMessage) json.RawMessage {
	var s string
	if len(raw) == 0 || raw[0] != '"' {
		return rawOrEmpty(raw)
	}
	if json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}

// MaxCalls bounds the calls a codec reads from one payload (Prompt's,
// read from a model's text, are bounded by MaxPromptCalls): a payload
// with more is an error. A call is a tool.Call of some 300 bytes and an
// id (one wire makes, for Gemini), for a block of 30 bytes: 32,768 calls
// in a MiB allocated 45 to 55 MB. A model's turn makes a few calls
// (agent.Run runs at most Options.MaxCallsPerTurn, 64 by default).
const MaxCalls = 1024

// tooManyCalls is an error when a payload's calls read so far (n) are
// MaxCalls already, before one more is read.
func tooManyCalls(kind string, n int) error {
	if n < MaxCalls {
		return nil
	}
	return fmt.Errorf("wire: the payload has more than %d calls (%ss): ask for fewer calls at a time", MaxCalls, kind)
}

// errStop ends eachElement early, with no error.
var errStop = errors.New("wire: stop")

// eachElement decodes the elements of arr, a JSON array of a payload
// that was read as valid JSON (null or absent: no elements), one at a
// time into a zeroed T, and hands each to fn, which may return errStop to
// end there. An array decoded whole into a slice first cost a slice
// element (24 to 96 bytes) for each element of a few bytes, and as much
// again as the slice grew, before the first was looked at: a hostile
// endpoint's (or MCP client's) array of 768 KiB of {} allocated 30 to
// 190 MB. An arr that is not an array, or an element that is not a T,
// is an error saying what (what) and which element. fn's errors are
// returned as they are.
//
// The elements are found in arr itself (nextElement): a large one is
// decoded where it stands (json.Unmarshal), small ones through one
// json.Decoder fed each in turn, whose buffer stays small (a
// json.Unmarshal of its own costs an element of a few bytes a decoder's
// state, some 200 bytes; one Decoder over the whole array copies it,
// and grows its buffer to twice its largest element).
func eachElement[T any](arr []byte, what string, fn func(i int, v *T) error) error {
	t := bytes.TrimSpace(arr)
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	if t[0] != '[' || !json.Valid(t) {
		var v []T // an object, a string or a number: encoding/json's error, skipped as read
		if err := json.Unmarshal(t, &v); err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
		return nil
	}
	const small = 4 << 10
	var feed elementFeed
	var dec *json.Decoder
	v := new(T)
	rest := t[1 : len(t)-1]
	for i := 0; len(bytes.TrimSpace(rest)) > 0; i++ {
		var elem []byte
		elem, rest = nextElement(rest)
		*v = *new(T)
		var err error
		if elem = bytes.TrimSpace(elem); len(elem) > small {
			err = json.Unmarshal(elem, v)
		} else {
			if dec == nil {
				dec = json.NewDecoder(&feed)
			}
			feed.b, feed.space = elem, true
			err = dec.Decode(v)
		}
		if err != nil {
			return fmt.Errorf("%s: element #%d: %v", what, i, err)
		}
		if err := fn(i, v); err != nil {
			if err == errStop {
				return nil
			}
			return err
		}
	}
	return nil
}

// nextElement cuts s, the inside of a valid JSON array (from after "["
// or a ","), at the comma that ends its first element.
func nextElement(s []byte) (elem, rest []byte) {
	depth, inString := 0, false
	for j := 0; j < len(s); j++ {
		c := s[j]
		if inString {
			switch c {
			case '\\':
				j++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				return s[:j], s[j+1:]
			}
		}
	}
	return s, nil
}

// elementFeed is the reader of eachElement's decoder: one element, then
// a space, which ends a number or a literal (the decoder waits for the
// byte after one).
type elementFeed struct {
	b     []byte
	space bool
}

func (f *elementFeed) Read(p []byte) (int, error) {
	n := copy(p, f.b)
	f.b = f.b[n:]
	if len(f.b) == 0 && f.space && n < len(p) {
		p[n] = ' '
		n++
		f.space = false
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// validJSON is nil when payload is JSON, else encoding/json's error
// saying where it is not (a payload decoded element by element is
// checked whole first, as one decoded at once was).
func validJSON(payload []byte) error {
	if json.Valid(payload) {
		return nil
	}
	var v struct{}
	if err := json.Unmarshal(payload, &v); err != nil {
		return err
	}
	return errors.New("invalid JSON")
}

func rawOrEmpty(r json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(r)) == 0 || string(bytes.TrimSpace(r)) == "null" {
		return json.RawMessage("{}")
	}
	return r
}

func needID(kind string, i int, id string) error {
	if id == "" {
		return fmt.Errorf("wire: %s #%d has no id: the result could not be matched to it", kind, i)
	}
	return nil
}

func needName(kind string, i int, name string) error {
	if name == "" {
		return fmt.Errorf("wire: %s #%d has no name", kind, i)
	}
	return nil
}

// uniqueIDs refuses calls of one turn that share an id: their results
// could not be told apart (the provider matches results to calls by id),
// nor could the audit trail, history and approvals tell the calls apart.
func uniqueIDs(kind string, calls []tool.Call) ([]tool.Call, error) {
	if len(calls) < 2 {
		return calls, nil
	}
	seen := make(map[string]int, len(calls))
	for i, c := range calls {
		if j, ok := seen[c.ID]; ok {
			// The id is the payload's, of any length: cut short, so that
			// the error stays a line to log.
			id := c.ID
			if len(id) > maxIDShown {
				id = textcut.Head(id, maxIDShown) + "..."
			}
			return nil, fmt.Errorf("wire: %s #%d has the same id %q as #%d: the results could not be matched to the calls", kind, i, id, j)
		}
		seen[c.ID] = i
	}
	return calls, nil
}

// maxIDShown bounds a call id an error repeats (and a name, a method, a
// finish reason); maxMessageShown a provider's message.
const (
	maxIDShown      = 64
	maxMessageShown = 256
)

// cut is s, text of a payload, cut to n bytes where characters start and
// marked "..." when cut: an error repeating it stays a line to log.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return textcut.Head(s, n) + "..."
}

// shownText is s, text of a payload an error repeats unquoted, cut to n
// bytes (cut) and quoted in Go syntax when a character of it does not
// print (a line break would write a line of the payload's choosing into
// a log that writes the error as it is).
func shownText(s string, n int) string {
	s = cut(s, n)
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return s
	}
	return strconv.Quote(s)
}

func resultID(r *tool.Result, i int) (string, error) {
	if r == nil {
		return "", fmt.Errorf("wire: result #%d is nil", i)
	}
	if r.CallID == "" {
		return "", fmt.Errorf("wire: result #%d (tool %q) has no call id: the provider could not match it to its call", i, cut(r.Tool, maxIDShown))
	}
	return r.CallID, nil
}

// ---- OpenAI chat completions ----

type openAIChat struct{}

func (openAIChat) Name() string { return "openai_chat" }

type oaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
	Custom struct {
		Name  string `json:"name"`
		Input string `json:"input"`
	} `json:"custom"`
}

// Calls reads an assistant message ({"role":"assistant","tool_calls":[...]}),
// or a whole chat completion ({"choices":[{"message":...}]}, first choice).
func (openAIChat) Calls(payload []byte) ([]tool.Call, error) {
	calls, err := openAIChatCalls(payload, true)
	if err != nil {
		return nil, err
	}
	return uniqueIDs("openai tool call", calls)
}

// openAIChatCalls reads a message, or with completion a whole completion
// too. The message of a completion's choice is only a message: a "choices"
// inside it is not read (it would run calls the transcript does not show,
// and each level of nesting would parse the rest again).
func openAIChatCalls(payload []byte, completion bool) ([]tool.Call, error) {
	var msg struct {
		Role      string          `json:"role"`
		ToolCalls json.RawMessage `json:"tool_calls"`
		Choices   json.RawMessage `json:"choices"`
	}
	if err := json.Unmarshal(payload, &msg); err != nil {
		return nil, fmt.Errorf("wire: openai chat message is not JSON: %v", err)
	}
	if completion {
		var first json.RawMessage
		found := false
		err := eachElement(msg.Choices, "wire: openai chat choices are not an array of choices", func(_ int, ch *struct {
			Message json.RawMessage `json:"message"`
		}) error {
			first, found = ch.Message, true
			return errStop // the first choice's
		})
		if err != nil {
			return nil, err
		}
		if found {
			return openAIChatCalls(first, false)
		}
	}
	calls := []tool.Call{}
	err := eachElement(msg.ToolCalls, "wire: openai chat tool_calls are not an array of tool calls", func(i int, tc *oaiToolCall) error {
		if err := tooManyCalls("openai tool call", len(calls)); err != nil {
			return err
		}
		if err := needID("openai tool call", i, tc.ID); err != nil {
			return err
		}
		name, args := tc.Function.Name, argsFromString(tc.Function.Arguments)
		if tc.Type != "" && tc.Type != "function" {
			// A custom (free-text) call, or a kind added later: it is
			// still a call the API wants a tool message for, so it goes to
			// the executor, which answers not_found or invalid_arguments
			// (its input is a string, not an object) for the model to read.
			name, args = tc.Custom.Name, nil
			if name == "" {
				name = tc.Type
			}
			args, _ = json.Marshal(tc.Custom.Input)
		}
		if err := needName("openai tool call", i, name); err != nil {
			return err
		}
		calls = append(calls, tool.Call{ID: tc.ID, Name: name, Args: args})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return calls, nil
}

// Results renders one {"role":"tool","tool_call_id","content"} message per result.
func (openAIChat) Results(results []*tool.Result) (json.RawMessage, error) {
	msgs := make([]map[string]any, 0, len(results))
	for i, r := range results {
		id, err := resultID(r, i)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": id, "content": Text(r)})
	}
	return json.Marshal(msgs)
}

// ---- OpenAI responses ----

type openAIResponses struct{}

func (openAIResponses) Name() string { return "openai_responses" }

// Calls reads a response ({"output":[...]}) or an array of output items; it
// takes the function_call items and skips message and reasoning items.
func (openAIResponses) Calls(payload []byte) ([]tool.Call, error) {
	items := bytes.TrimSpace(payload)
	if len(items) > 0 && items[0] == '[' {
		if err := validJSON(items); err != nil {
			return nil, fmt.Errorf("wire: openai responses output is not a JSON array: %v", err)
		}
	} else {
		var resp struct {
			Output json.RawMessage `json:"output"`
		}
		if err := json.Unmarshal(items, &resp); err != nil {
			return nil, fmt.Errorf("wire: openai response is not JSON: %v", err)
		}
		items = resp.Output
	}
	var calls []tool.Call
	err := eachElement(items, "wire: openai responses output item is not an object", func(i int, it *struct {
		Type      string          `json:"type"`
		CallID    string          `json:"call_id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}) error {
		switch it.Type {
		case "function_call":
			if err := tooManyCalls("function_call item", len(calls)); err != nil {
				return err
			}
			if err := needID("function_call item", i, it.CallID); err != nil {
				return err
			}
			if err := needName("function_call item", i, it.Name); err != nil {
				return err
			}
			calls = append(calls, tool.Call{ID: it.CallID, Name: it.Name, Args: argsFromString(it.Arguments)})
		case "":
			return fmt.Errorf("wire: openai responses item #%d has no type", i)
		default:
			// message, reasoning, server-side tool calls, custom_tool_call,
			// mcp_approval_request, shell_call, compaction and types added
			// later: not a function call, skipped.
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return uniqueIDs("function_call item", calls)
}

// Results renders one function_call_output item per result.
func (openAIResponses) Results(results []*tool.Result) (json.RawMessage, error) {
	items := make([]map[string]any, 0, len(results))
	for i, r := range results {
		id, err := resultID(r, i)
		if err != nil {
			return nil, err
		}
		items = append(items, map[string]any{"type": "function_call_output", "call_id": id, "output": Text(r)})
	}
	return json.Marshal(items)
}

// ---- Anthropic ----

type anthropic struct{}

func (anthropic) Name() string { return "anthropic" }

// Calls reads a message ({"role":"assistant","content":[...]}) and takes its
// tool_use blocks.
func (anthropic) Calls(payload []byte) ([]tool.Call, error) {
	var msg struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(payload, &msg); err != nil {
		return nil, fmt.Errorf("wire: anthropic message is not JSON: %v", err)
	}
	if len(msg.Content) == 0 || msg.Content[0] == '"' {
		return nil, nil // plain text content
	}
	var calls []tool.Call
	err := eachElement(msg.Content, "wire: anthropic content is not an array of blocks", func(i int, b *struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}) error {
		switch b.Type {
		case "tool_use":
			if err := tooManyCalls("tool_use block", len(calls)); err != nil {
				return err
			}
			if err := needID("tool_use block", i, b.ID); err != nil {
				return err
			}
			if err := needName("tool_use block", i, b.Name); err != nil {
				return err
			}
			calls = append(calls, tool.Call{ID: b.ID, Name: b.Name, Args: rawOrEmpty(b.Input)})
		case "":
			return fmt.Errorf("wire: anthropic content block #%d has no type", i)
		default:
			// text, thinking, redacted_thinking, server_tool_use, the
			// server tools' result blocks and types added later: skipped.
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return uniqueIDs("tool_use block", calls)
}

// Results renders one user message holding a tool_result block per result.
func (anthropic) Results(results []*tool.Result) (json.RawMessage, error) {
	blocks := make([]map[string]any, 0, len(results))
	for i, r := range results {
		id, err := resultID(r, i)
		if err != nil {
			return nil, err
		}
		b := map[string]any{"type": "tool_result", "tool_use_id": id, "content": Text(r)}
		if r.Error != nil {
			b["is_error"] = true
		}
		blocks = append(blocks, b)
	}
	return json.Marshal(map[string]any{"role": "user", "content": blocks})
}

// ---- Gemini ----

type gemini struct{}

func (gemini) Name() string { return "gemini" }

// Calls reads a content ({"role":"model","parts":[...]}) or a whole
// response ({"candidates":[{"content":...}]}, first candidate), taking its
// functionCall parts. Gemini may omit call ids; a missing id becomes
// "<name>#<index>", which Results sends back as the id.
func (gemini) Calls(payload []byte) ([]tool.Call, error) {
	calls, err := geminiCalls(payload, true)
	if err != nil {
		return nil, err
	}
	return uniqueIDs("gemini functionCall", calls)
}

// geminiCalls reads a content, or with response a whole response too. The
// content of a response's candidate is only a content: a "candidates"
// inside it is not read (it would run calls the transcript does not show,
// and each level of nesting would parse the rest again). A part is read
// for its functionCall member only, as the genai SDK's Part reads it
// (encoding/json, names matched without case): its other members are
// skipped as they are read, where a map of every member cost many times
// their bytes.
func geminiCalls(payload []byte, response bool) ([]tool.Call, error) {
	var c struct {
		Parts      json.RawMessage `json:"parts"`
		Candidates json.RawMessage `json:"candidates"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, fmt.Errorf("wire: gemini content is not JSON: %v", err)
	}
	type candidate struct {
		Content       json.RawMessage `json:"content"`
		FinishReason  string          `json:"finishReason"`
		FinishMessage string          `json:"finishMessage"`
	}
	var cand candidate
	found := false
	if response {
		err := eachElement(c.Candidates, "wire: gemini candidates are not an array of candidates", func(_ int, first *candidate) error {
			cand, found = *first, true
			return errStop // the first candidate's
		})
		if err != nil {
			return nil, err
		}
	}
	if found {
		if len(bytes.TrimSpace(cand.Content)) == 0 || string(bytes.TrimSpace(cand.Content)) == "null" {
			if cand.FinishReason == "" || cand.FinishReason == "STOP" {
				return nil, nil // an empty answer
			}
			msg := fmt.Sprintf("wire: gemini candidate has no content: finish reason %s", shownText(cand.FinishReason, maxIDShown))
			if cand.FinishMessage != "" {
				msg += " (" + shownText(cand.FinishMessage, maxMessageShown) + ")"
			}
			if cand.FinishReason == "MALFORMED_FUNCTION_CALL" {
				msg += ": the model wrote a function call the API could not parse; ask again, or simplify the tool's schema"
			}
			return nil, fmt.Errorf("%s", msg)
		}
		return geminiCalls(cand.Content, false)
	}
	var calls []tool.Call
	err := eachElement(c.Parts, "wire: gemini parts are not an array of parts", func(i int, p *struct {
		FunctionCall json.RawMessage `json:"functionCall"`
	}) error {
		raw := p.FunctionCall
		if raw == nil {
			return nil // text, thought, inline data, parts added later: skipped
		}
		if err := tooManyCalls("gemini functionCall", len(calls)); err != nil {
			return err
		}
		var fc struct {
			ID   string          `json:"id"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		}
		if err := json.Unmarshal(raw, &fc); err != nil {
			return fmt.Errorf("wire: gemini functionCall #%d is not an object: %v", i, err)
		}
		if err := needName("gemini functionCall", i, fc.Name); err != nil {
			return err
		}
		id := fc.ID
		if id == "" {
			id = fmt.Sprintf("%s#%d", fc.Name, i)
		}
		calls = append(calls, tool.Call{ID: id, Name: fc.Name, Args: rawOrEmpty(fc.Args)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return calls, nil
}

// Results renders one user content with a functionResponse part per result;
// the response is {"output": ...} or {"error": {...}}. Structured output
// goes as JSON when it is at most MaxResultText and spells no control
// token (see plainJSON), otherwise as Text renders it.
func (gemini) Results(results []*tool.Result) (json.RawMessage, error) {
	parts := make([]map[string]any, 0, len(results))
	for i, r := range results {
		id, err := resultID(r, i)
		if err != nil {
			return nil, err
		}
		var resp map[string]any
		switch {
		case r.Error != nil:
			resp = map[string]any{"error": map[string]any{"code": r.Error.Code, "message": clip(errorText(r))}}
		case len(r.Output) > 0 && plainJSON(r.Output):
			resp = map[string]any{"output": json.RawMessage(r.Output)}
		default:
			resp = map[string]any{"output": Text(r)}
		}
		fr := map[string]any{"name": r.Tool, "response": resp}
		if !strings.HasPrefix(id, r.Tool+"#") {
			fr["id"] = id
		}
		parts = append(parts, map[string]any{"functionResponse": fr})
	}
	return json.Marshal(map[string]any{"role": "user", "parts": parts})
}

// plainJSON reports whether out, structured output, may go to a model as
// JSON, as it is: it is valid, within MaxResultText, and spells no chat
// template's control token in any string or key, escapes read (the API
// decodes "\u003cstart_of_turn\u003e" to the token). Other output goes as
// Text renders it, cut and defused, as every other result does.
func plainJSON(out json.RawMessage) bool {
	if len(out) > MaxResultText || !json.Valid(out) {
		return false
	}
	if !bytes.ContainsAny(out, `<[\`) {
		return true // no token, nor an escape that could spell one
	}
	// The strings of out, keys too, escapes read, one after another with
	// a quote between (no token has one): a token can be spelt only
	// inside a string, as JSON's punctuation outside strings starts none
	// ("[" is followed by a value, "]" by ",", "]" or "}"). Decoding out
	// into Go values, to encode it again and look, cost some 50x its
	// bytes for 16 KiB of {} (52 MB for 64 such results), at each
	// render of the conversation's results.
	var text []byte
	var feed elementFeed
	var dec *json.Decoder
	var s string
	for i := 0; i < len(out); i++ {
		if out[i] != '"' {
			continue
		}
		j, escaped := i+1, false
		for ; out[j] != '"'; j++ { // out is valid: the string ends
			if out[j] == '\\' {
				j, escaped = j+1, true
			}
		}
		if escaped {
			if dec == nil {
				dec = json.NewDecoder(&feed)
			}
			feed.b, feed.space = out[i:j+1], true
			if dec.Decode(&s) != nil {
				return false
			}
			text = append(text, s...)
		} else {
			text = append(text, out[i+1:j]...)
		}
		text = append(text, '"')
		i = j
	}
	t := string(text)
	return defuseResult(t) == t
}

// ---- MCP ----

type mcpCodec struct{}

func (mcpCodec) Name() string { return "mcp" }

// Calls reads a tools/call request ({"jsonrpc":"2.0","id":..,"method":
// "tools/call","params":{"name","arguments"}}), or a JSON array of them; the
// JSON-RPC id becomes the call id.
func (mcpCodec) Calls(payload []byte) ([]tool.Call, error) {
	type request struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	calls := []tool.Call{}
	add := func(i int, r *request) error {
		if err := tooManyCalls("mcp request", len(calls)); err != nil {
			return err
		}
		if r.Method != "tools/call" {
			return fmt.Errorf("wire: mcp request #%d has method %q: expected \"tools/call\"", i, cut(r.Method, maxIDShown))
		}
		id := strings.Trim(string(r.ID), `"`)
		if err := needID("mcp request", i, id); err != nil {
			return err
		}
		if err := needName("mcp request", i, r.Params.Name); err != nil {
			return err
		}
		calls = append(calls, tool.Call{ID: id, Name: r.Params.Name, Args: rawOrEmpty(r.Params.Arguments)})
		return nil
	}
	trimmed := bytes.TrimSpace(payload)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := validJSON(trimmed); err != nil {
			return nil, fmt.Errorf("wire: mcp batch is not a JSON array: %v", err)
		}
		// Each request read as it comes: a batch of a MiB of {} is not a
		// slice of every one first.
		if err := eachElement(trimmed, "wire: mcp request is not JSON", add); err != nil {
			return nil, err
		}
	} else {
		var r request
		if err := json.Unmarshal(trimmed, &r); err != nil {
			return nil, fmt.Errorf("wire: mcp request #0 is not JSON: %v", err)
		}
		if err := add(0, &r); err != nil {
			return nil, err
		}
	}
	return uniqueIDs("mcp request", calls)
}

// Results renders a CallToolResult per result: content blocks, the
// structured output as structuredContent (and as JSON text), isError.
func (mcpCodec) Results(results []*tool.Result) (json.RawMessage, error) {
	out := make([]map[string]any, 0, len(results))
	for i, r := range results {
		if _, err := resultID(r, i); err != nil {
			return nil, err
		}
		var content []map[string]any
		if r.Error != nil {
			content = append(content, map[string]any{"type": "text", "text": Text(r)})
		} else {
			if len(r.Output) > 0 {
				content = append(content, map[string]any{"type": "text", "text": string(r.Output)})
			}
			for _, c := range r.Content {
				content = append(content, mcpContent(c))
			}
		}
		if content == nil {
			content = []map[string]any{}
		}
		res := map[string]any{"content": content}
		if r.Error != nil {
			res["isError"] = true
		} else if len(r.Output) > 0 && json.Valid(r.Output) && bytes.HasPrefix(bytes.TrimSpace(r.Output), []byte("{")) {
			res["structuredContent"] = json.RawMessage(r.Output)
		}
		out = append(out, res)
	}
	return json.Marshal(out)
}

func mcpContent(c tool.Content) map[string]any {
	switch c.Type {
	case tool.ContentImage, tool.ContentAudio:
		return map[string]any{"type": string(c.Type), "data": c.Data, "mimeType": c.MIMEType}
	case tool.ContentResourceLink:
		m := map[string]any{"type": "resource_link", "uri": c.URI, "name": c.Name}
		if c.MIMEType != "" {
			m["mimeType"] = c.MIMEType
		}
		return m
	case tool.ContentResource:
		res := map[string]any{"uri": c.URI}
		if c.MIMEType != "" {
			res["mimeType"] = c.MIMEType
		}
		if c.Text != "" {
			res["text"] = c.Text
		} else {
			res["blob"] = c.Data
		}
		return map[string]any{"type": "resource", "resource": res}
	}
	return map[string]any{"type": "text", "text": c.Text}
}
