package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A scripted model stands in for a provider client: it calls a tool once,
// then answers with what the tool returned.
func ExampleRun() {
	reg := registry.New()
	reg.MustRegister(tool.Func("add", "Add two integers", func(_ context.Context, in AddArgs) (Sum, error) {
		return Sum{in.A + in.B}, nil
	}))
	model := agent.ModelFunc(func(ctx context.Context, conv []agent.Message, tools []tool.Spec) (agent.Message, error) {
		last := conv[len(conv)-1]
		if last.Role == agent.RoleTool {
			return agent.Message{Text: "The sum is " + string(last.Results[0].Output)}, nil
		}
		return agent.Message{Calls: []tool.Call{{ID: "c1", Name: "add", Args: json.RawMessage(`{"a":2,"b":40}`)}}}, nil
	})
	tr, err := agent.Run(context.Background(), model,
		[]agent.Message{{Role: agent.RoleUser, Text: "What is 2 + 40?"}},
		agent.Options{Executor: executor.MustNew(reg), Tools: []string{"add"}})
	fmt.Println(tr.Final, tr.Stop, tr.Iterations, err)
	// Output:
	// The sum is {"sum":42} answered 2 <nil>
}

// A model without native tool calling: the text model here is scripted;
// over a real one it sends the messages to a chat API without tools and
// returns the reply's text.
func ExamplePromptTools() {
	reg := registry.New()
	reg.MustRegister(tool.Func("add", "Add two integers", func(_ context.Context, in AddArgs) (Sum, error) {
		return Sum{in.A + in.B}, nil
	}))
	model := agent.PromptTools(func(_ context.Context, msgs []agent.ChatMessage) (string, error) {
		last := msgs[len(msgs)-1].Content
		if len(msgs) > 2 { // the results came back
			return "The tool said:\n" + last, nil
		}
		return "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 2, \"b\": 40}}\n</tool_call>", nil
	})
	tr, err := agent.Run(context.Background(), model,
		[]agent.Message{{Role: agent.RoleUser, Text: "What is 2 + 40?"}},
		agent.Options{Executor: executor.MustNew(reg), Tools: []string{"add"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(tr.Final)
	// Output:
	// The tool said:
	// <tool_response name="add">
	// {"sum":42}
	// </tool_response>
}
