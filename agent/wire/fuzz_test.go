package wire_test

import (
	"encoding/json"
	"testing"

	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/tool"
)

// FuzzCodecCalls holds every codec to its contract on any payload: it
// never panics, and calls it reads have a name, ids that are distinct
// (and present, but for Prompt's, which the text gives none), and
// arguments; their results render without error.
func FuzzCodecCalls(f *testing.F) {
	for _, s := range []string{
		`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{\"x\":1}"}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"id":"c1","type":"custom","custom":{"name":"a","input":"x"}}]}}]}`,
		`{"output":[{"type":"function_call","call_id":"c1","name":"a","arguments":"{}"},{"type":"reasoning"}]}`,
		`{"content":[{"type":"tool_use","id":"t1","name":"a","input":{"x":[1]}},{"type":"thinking"}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"a","args":{}}},{"functionCall":{"name":"a"}}]}}]}`,
		`{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"x"}]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{}}}]`,
		`{"role":"assistant","content":"hi <tool_call>{\"name\":\"a\",\"arguments\":{}}</tool_call><tool_call>{\"name\": \"b\" oops</tool_call>"}`,
		`null`, `[]`, `{}`, `"x"`, `[[[[[[]]]]]]`, `{"parts":[null,1]}`, `{"content":null}`, `{"tool_calls":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		for _, c := range wire.Codecs {
			calls, err := c.Calls(payload)
			if err != nil {
				continue
			}
			seen := map[string]bool{}
			results := make([]*tool.Result, 0, len(calls))
			for i, call := range calls {
				if call.Name == "" {
					t.Fatalf("%s: call #%d has no name", c.Name(), i)
				}
				if c != wire.Prompt {
					if call.ID == "" {
						t.Fatalf("%s: call #%d has no id", c.Name(), i)
					}
					if seen[call.ID] {
						t.Fatalf("%s: call #%d repeats id %q", c.Name(), i, call.ID)
					}
					seen[call.ID] = true
				}
				if len(call.Args) == 0 {
					t.Fatalf("%s: call #%d has no arguments", c.Name(), i)
				}
				id := call.ID
				if id == "" {
					id = "filled"
				}
				results = append(results, &tool.Result{CallID: id, Tool: call.Name, Output: json.RawMessage(call.Args)})
			}
			if _, err := c.Results(results); err != nil {
				t.Fatalf("%s: results of the calls read: %v", c.Name(), err)
			}
		}
	})
}
