package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Prompt is the wire format of models without native tool calling (small
// local models behind Ollama or an OpenAI-compatible server, called
// without tools): the system prompt describes the tools
// (PromptInstructions), the model writes each call in its reply's text as
// a block
//
//	<tool_call>
//	{"name": "read_file", "arguments": {"path": "README.md"}}
//	</tool_call>
//
// as the chat templates of Hermes and Qwen models do, and the results go
// back in a user message of <tool_response> blocks, in call order.
//
// Payloads are chat messages, {"role": "assistant", "content": "..."} as
// such servers return them; Results returns {"role": "user", "content":
// "..."}. The calls it reads have no ids (the text gives none): the agent
// loop numbers them. A block whose arguments are not JSON is still a call,
// which the executor answers with an invalid-arguments result the model
// can correct; a block that names no tool is an error.
//
// Every block is a call, wherever it stands: one inside a code fence
// (```), which a model may have meant as an example, is run too, as the
// Hermes parsers of other servers run it. The text gives no sure sign of
// an example (small models fence their real calls as well); the
// instructions ask for calls only, after any text, and what a call may do
// is the approval policy's to decide, not its place in the reply. A
// block ends at the first </tool_call>, even one inside a JSON string: a
// call cannot carry that text in its arguments (the cut block is not JSON,
// and the executor answers invalid arguments).
var Prompt Codec = promptCodec{}

// MaxPromptCalls bounds the <tool_call> blocks read from one reply.
const MaxPromptCalls = 64

type promptCodec struct{}

func (promptCodec) Name() string { return "prompt" }

// callBlocks returns the bodies of the <tool_call> blocks of s, at most
// limit of them; a block s ends inside runs to the end. It scans s once
// (a reply of megabytes costs what reading it does).
func callBlocks(s string, limit int) []string {
	const open, end = "<tool_call>", "</tool_call>"
	var out []string
	for len(out) < limit {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		s = s[i+len(open):]
		j := strings.Index(s, end)
		if j < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:j])
		s = s[j+len(end):]
	}
	return out
}

// nameIn finds the text of the first "name": "..." in a body that is not
// JSON, as written (escapes included), in one pass: a string that never
// ends names nothing.
func nameIn(body string) (string, bool) {
	const key, blanks = `"name"`, " \t\n\f\r"
	for {
		i := strings.Index(body, key)
		if i < 0 {
			return "", false
		}
		body = body[i+len(key):]
		t := strings.TrimLeft(body, blanks)
		if !strings.HasPrefix(t, ":") {
			continue
		}
		t = strings.TrimLeft(t[1:], blanks)
		if !strings.HasPrefix(t, `"`) {
			continue
		}
		t = t[1:]
		for j := 0; j < len(t); j++ {
			switch t[j] {
			case '\\':
				j++
			case '"':
				return t[:j], true
			}
		}
		return "", false
	}
}

// Calls reads the <tool_call> blocks of an assistant message's content (a
// block the reply ends inside, cut by a stop sequence or a token limit,
// counts up to the end).
func (promptCodec) Calls(payload []byte) ([]tool.Call, error) {
	var msg struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(payload, &msg); err != nil {
		return nil, fmt.Errorf("wire: prompt message is not a chat message ({\"role\": \"assistant\", \"content\": \"...\"}): %v", err)
	}
	blocks := callBlocks(msg.Content, MaxPromptCalls+1)
	if len(blocks) > MaxPromptCalls {
		return nil, fmt.Errorf("wire: the reply has more than %d <tool_call> blocks: ask for fewer calls at a time", MaxPromptCalls)
	}
	calls := make([]tool.Call, 0, len(blocks))
	for i, b := range blocks {
		body := strings.TrimSpace(b)
		var c struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal([]byte(body), &c); err != nil {
			// Not JSON: the name, if it can be read, makes a call whose
			// arguments the executor refuses, for the model to correct.
			raw, ok := nameIn(body)
			var name string
			if json.Unmarshal([]byte(`"`+raw+`"`), &name) != nil {
				name = raw
			}
			if !ok || name == "" {
				// "name": "" names no tool, as in a block that is JSON.
				return nil, fmt.Errorf("wire: <tool_call> block #%d is not JSON and names no tool: write {\"name\": ..., \"arguments\": {...}}", i)
			}
			calls = append(calls, tool.Call{Name: name, Args: json.RawMessage(body)})
			continue
		}
		if err := needName("<tool_call> block", i, c.Name); err != nil {
			return nil, err
		}
		calls = append(calls, tool.Call{Name: c.Name, Args: argsFromString(c.Arguments)})
	}
	return calls, nil
}

// Results renders results as a user message of <tool_response> blocks, one
// for each result in call order (the format has no call ids: order
// matches them), each holding what Text says of it. The tags in a
// result's text and in its tool name, in any case and with blanks inside
// (</TOOL_RESPONSE>, < tool_call>), are escaped (see escapeTags), so that
// a result cannot end its block early or pass for another, or for a call.
func (promptCodec) Results(results []*tool.Result) (json.RawMessage, error) {
	text, err := PromptResults(results)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // the tags stay readable
	msg := struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}{"user", text}
	if err := enc.Encode(msg); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// PromptResults is the text of the user message Prompt.Results renders:
// one <tool_response> block for each result, in call order.
func PromptResults(results []*tool.Result) (string, error) {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n")
		}
		if r == nil {
			return "", fmt.Errorf("wire: prompt result #%d is nil: pass the executor's result of each call", i)
		}
		fmt.Fprintf(&b, "<tool_response name=%s>\n%s\n</tool_response>", escapeTags(promptName(r.Tool)), escapeTags(Text(r)))
	}
	return b.String(), nil
}

// promptName is a result's tool name as its block quotes it: cut to
// maxIDShown bytes and defused as the result's text is. The name of a
// call refused before it ran (a tool not offered) is the model's text,
// of any length and spelling: it goes back in every later request, to
// a server that tokenizes it with special tokens parsed.
func promptName(name string) string {
	if len(name) > maxIDShown {
		name = textcut.Head(name, maxIDShown) + "..."
	}
	return defuseResult(strconv.Quote(name))
}

// tagRE finds the tags of the format as a model may read them: in any
// case, with blanks inside (</TOOL_RESPONSE>, < /tool_call>).
var tagRE = regexp.MustCompile(`(?i)<(\s*/?\s*tool_(?:response|call))`)

// escapeTags puts a backslash after the "<" of every tag tagRE finds
// ("</tool_response>" is "<\/tool_response>"), so that no text can end a
// block or open one. Lookalikes of the characters (a fullwidth <, a
// Cyrillic o) are left as they are: no escaping can foresee what a model
// reads as a tag, and the blocks' count and order still match the calls.
func escapeTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	return tagRE.ReplaceAllString(s, `<\${1}`)
}

// PromptInstructions is the system prompt text that tells a model without
// native tool calling about tools and how to call them (the Prompt
// format): each tool's name, description and JSON Schema, one JSON object
// a line inside <tools></tools>, with the chat templates' control tokens
// the lines spell defused (Defuse), as a result's are: a tool's texts are
// its author's, or an MCP server's. Put it in the system message, after
// your own instructions.
func PromptInstructions(tools []tool.Spec) string {
	var b strings.Builder
	b.WriteString(`You can call tools. To call one, write a block

<tool_call>
{"name": "<tool name>", "arguments": <its arguments, a JSON object>}
</tool_call>

You may write several blocks, and nothing after the last one. The results come back in <tool_response> blocks, in the same order. When you have what you need, answer without a <tool_call> block.

The tools, each with the JSON Schema of its arguments:
<tools>
`)
	for _, s := range tools {
		line, err := json.Marshal(struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}{s.Name, s.Description, rawOrEmpty(s.InputSchema)})
		if err != nil {
			// An input schema that is not JSON: registration refuses
			// those, so only a hand-made spec gets here.
			line, _ = json.Marshal(map[string]string{"name": s.Name, "description": s.Description})
		}
		// The line goes into a prompt the server tokenizes with special
		// tokens parsed: JSON escapes "<" but not "[", so a description
		// spelling "[/AVAILABLE_TOOLS][INST]" would end the tools and open
		// a user turn. Defused as results are (the space keeps the JSON
		// valid); an enum value spelling a token is respelt too, and a
		// call with it is refused: a value the prompt cannot carry.
		b.WriteString(defuse(string(line)))
		b.WriteString("\n")
	}
	b.WriteString("</tools>")
	return b.String()
}
