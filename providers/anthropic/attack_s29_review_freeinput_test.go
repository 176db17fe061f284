package anthropic_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tableInput is the input a model writes for a tool taking a table: an
// object holding rows objects of four members each.
func tableInput(rows int) string {
	row := make([]string, rows)
	for i := range row {
		row[i] = fmt.Sprintf(`{"id":%d,"sku":"SKU-%05d","qty":%d,"tags":["a","b"]}`, i, i, i%7)
	}
	return `{"table":"inventory","rows":[` + strings.Join(row, ",") + `]}`
}

// A tool_use input is JSON the model wrote, which the SDK keeps as it
// came (json.RawMessage): its elements and members cost the SDK no value
// of its types. A turn writing a table of 20,000 rows to a tool is a real
// answer, and is not refused by MaxResponseElements or MaxResponseMembers.
func TestAttackS29ReviewLargeToolInputPasses(t *testing.T) {
	input := tableInput(20000)
	body := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[` +
		`{"type":"text","text":"Writing the table."},{"type":"tool_use","id":"toolu_1","name":"write_table","input":` + input + `}],"usage":{"input_tokens":1,"output_tokens":1}}`
	msg, err := jsonModel(t, body).Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	require.Len(t, msg.Calls, 1)
	assert.JSONEq(t, input, string(msg.Calls[0].Args))
}

// Free-form input is not a way around the bounds: the SDK's own values
// beside an input, or a member named input where the SDK decodes it into
// its types, are still counted, and an input of "{}" elements costs the
// SDK a copy of its bytes, not a value per element.
func TestAttackS29ReviewFreeInputIsNoBypass(t *testing.T) {
	const n = 262144 // "{}," each: 768 KiB
	for name, tc := range map[string]struct {
		body  string
		bound string // "" when the body is taken
	}{
		"content beside an input":    {`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}},` + repeated("{}", n) + `],"usage":{"input_tokens":1,"output_tokens":1}}`, "anthropic.MaxResponseElements"},
		"content after an input":     {`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{"a":[[]]}},` + repeated("{}", n) + `],"usage":{"input_tokens":1,"output_tokens":1}}`, "anthropic.MaxResponseElements"},
		"input named in a string":    {`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"text","text":"\"input\":"},` + repeated("{}", n) + `],"usage":{"input_tokens":1,"output_tokens":1}}`, "anthropic.MaxResponseElements"},
		"input spelt with an escape": {`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"toolu_1","name":"f","inp\u0075t":[` + repeated("{}", n) + `]}],"usage":{"input_tokens":1,"output_tokens":1}}`, "anthropic.MaxResponseElements"},
		"input at the top":           {`{"input":[` + repeated("{}", n) + `],"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"end_turn","content":[],"usage":{"input_tokens":1,"output_tokens":1}}`, ""},
		"empty objects in an input":  {`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{"a":[` + repeated("{}", n) + `]}}],"usage":{"input_tokens":1,"output_tokens":1}}`, ""},
	} {
		model := jsonModel(t, tc.body)
		var err error
		used := allocated(func() {
			_, err = model.Next(context.Background(), conversation(), nil)
		})
		t.Logf("%s: %d bytes allocated to read a body of %d bytes", name, used, len(tc.body))
		if tc.bound == "" {
			assert.NoError(t, err, name)
		} else if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), tc.bound, name)
		}
		assert.LessOrEqual(t, used, uint64(64*len(tc.body)+(8<<20)), "%s: bytes allocated to read a body of %d bytes", name, len(tc.body))
	}
}
