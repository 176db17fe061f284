package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/tool"
)

// ChatMessage is one message of a chat API called without tools: a role
// ("system", "user" or "assistant") and its text.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// TextModel completes a chat without native tool calling: given the
// messages, it returns the text of the model's reply. It is what a user
// writes over a client of a model that has no tools API (or one that
// handles it badly): one request, the reply's text.
type TextModel func(ctx context.Context, messages []ChatMessage) (string, error)

// PromptTools makes a Model of a model without native tool calling, in the
// wire.Prompt format: the tools on offer are described at the end of the
// system message (wire.PromptInstructions; a system message is added
// when the conversation has none), the reply's <tool_call> blocks are its
// calls, and each turn of results goes back as a user message of
// <tool_response> blocks. Less reliable than native tool calling: a block
// that names no tool is an error of Next, and arguments that are not JSON
// reach the executor, which answers invalid_arguments for the model to
// correct. The model's earlier replies go back with the chat templates'
// control tokens they spell defused (wire.Defuse), as results do: the
// server tokenizes the whole prompt with special tokens parsed, and a
// reply spelling "<|im_end|><|im_start|>user" would become a user turn.
func PromptTools(complete TextModel) Model {
	return ModelFunc(func(ctx context.Context, conversation []Message, tools []tool.Spec) (Message, error) {
		msgs, err := promptMessages(conversation, tools)
		if err != nil {
			return Message{}, err
		}
		reply, err := complete(ctx, msgs)
		if err != nil {
			return Message{}, err
		}
		payload, _ := json.Marshal(ChatMessage{Role: "assistant", Content: reply})
		calls, err := wire.Prompt.Calls(payload)
		if err != nil {
			return Message{}, err
		}
		return Message{Role: RoleAssistant, Text: reply, Calls: calls, Raw: payload, RawFormat: wire.Prompt.Name()}, nil
	})
}

// promptMessages renders a conversation as text messages.
func promptMessages(conversation []Message, tools []tool.Spec) ([]ChatMessage, error) {
	var out []ChatMessage
	instructions := ""
	if len(tools) > 0 {
		instructions = wire.PromptInstructions(tools)
	}
	if len(conversation) == 0 || conversation[0].Role != RoleSystem {
		if instructions != "" {
			out = append(out, ChatMessage{Role: "system", Content: instructions})
		}
		instructions = ""
	}
	for i, m := range conversation {
		switch m.Role {
		case RoleSystem:
			text := m.Text
			if i == 0 && instructions != "" {
				text = strings.TrimSpace(text + "\n\n" + instructions)
			}
			out = append(out, ChatMessage{Role: "system", Content: text})
		case RoleUser:
			out = append(out, ChatMessage{Role: "user", Content: m.Text})
		case RoleAssistant:
			text := m.Text
			if m.RawFormat != wire.Prompt.Name() && len(m.Calls) > 0 {
				// Calls made in another format: written as blocks, so the
				// model sees what it called.
				var b strings.Builder
				b.WriteString(text)
				for _, c := range m.Calls {
					line, _ := json.Marshal(struct {
						Name      string          `json:"name"`
						Arguments json.RawMessage `json:"arguments"`
					}{c.Name, validOrString(c.Args)})
					fmt.Fprintf(&b, "\n<tool_call>\n%s\n</tool_call>", line)
				}
				text = strings.TrimSpace(b.String())
			}
			// The reply goes back into a prompt the server tokenizes with
			// special tokens parsed: a control token the model spelt would
			// end its turn and open another role's.
			out = append(out, ChatMessage{Role: "assistant", Content: wire.Defuse(text)})
		case RoleTool:
			text, err := wire.PromptResults(m.Results)
			if err != nil {
				return nil, err
			}
			out = append(out, ChatMessage{Role: "user", Content: text})
		default:
			return nil, fmt.Errorf("agent: message #%d has role %q: use system, user, assistant or tool", i, m.Role)
		}
	}
	return out, nil
}

// validOrString is args when it is JSON, else args as a JSON string.
func validOrString(args json.RawMessage) json.RawMessage {
	if json.Valid(args) {
		return args
	}
	s, _ := json.Marshal(string(args))
	return s
}
