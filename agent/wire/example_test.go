package wire_test

import (
	"context"
	"fmt"

	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Read the tool calls out of an Anthropic message, run them, and render the
// user message of tool_result blocks to send back.
func Example() {
	reg := registry.New()
	reg.MustRegister(tool.Func("add", "Add two integers", func(_ context.Context, in struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (int, error) {
		return in.A + in.B, nil
	}))
	ex := executor.MustNew(reg)

	msg := []byte(`{"role":"assistant","content":[
	  {"type":"text","text":"Let me add those."},
	  {"type":"tool_use","id":"toolu_1","name":"add","input":{"a":2,"b":40}},
	  {"type":"tool_use","id":"toolu_2","name":"add","input":{"a":"two"}}]}`)
	calls, err := wire.Anthropic.Calls(msg)
	if err != nil {
		fmt.Println(err)
		return
	}
	results := ex.ExecuteBatch(context.Background(), calls)
	reply, _ := wire.Anthropic.Results(results)
	fmt.Println(string(reply))
	// Output:
	// {"content":[{"content":"42","tool_use_id":"toolu_1","type":"tool_result"},{"content":"error [invalid_arguments]: a: must be integer, got string; b: required","is_error":true,"tool_use_id":"toolu_2","type":"tool_result"}],"role":"user"}
}
