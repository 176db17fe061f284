package wire_test

import (
	"strings"
	"testing"

	"github.com/toolbelt-go/toolbelt/agent/wire"
)

// BenchmarkPromptCalls reads replies of 4 MiB built to make Calls slow:
// plain text, one block left open over it all, the most blocks a reply may
// have with bodies that are not JSON (so the name is looked for in each),
// and a body of many "name" keys none of which ends.
func BenchmarkPromptCalls(b *testing.B) {
	const size = 4 << 20
	blocks := wire.MaxPromptCalls
	body := strings.Repeat("x", size/blocks)
	for name, content := range map[string]string{
		"text":       strings.Repeat("a <tool_call ", size/13),
		"open_block": "<tool_call>" + strings.Repeat(`{"name": "`, size/10),
		"not_json":   strings.Repeat(`<tool_call>{"name": "bash", `+body+`</tool_call>`, blocks),
		"names":      "<tool_call>" + strings.Repeat(`"name" : "\`, size/11),
	} {
		payload := reply(content)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				_, _ = wire.Prompt.Calls(payload)
			}
		})
	}
}
