package gemini_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/gemini"
)

// tableArgs is the args a model writes for a tool taking a table: an
// object holding rows objects of four members each.
func tableArgs(rows int) string {
	row := make([]string, rows)
	for i := range row {
		row[i] = fmt.Sprintf(`{"id":%d,"sku":"SKU-%05d","qty":%d,"tags":["a","b"]}`, i, i, i%7)
	}
	return `{"table":"inventory","rows":[` + strings.Join(row, ",") + `]}`
}

// A functionCall's args are JSON the model wrote, which the SDK keeps as
// encoding/json decodes any JSON (a map[string]any), with no value of its
// types per element or member. A turn writing a table of 20,000 rows to
// a tool is a real answer, and is not refused by MaxResponseElements or
// MaxResponseMembers, in an answer or in a stream's event.
func TestAttackS29ReviewLargeToolArgsPass(t *testing.T) {
	args := tableArgs(20000)
	chunk := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"write_table","args":` + args + `}}]},"finishReason":"STOP"}]}`
	msg, err := jsonModel(t, chunk).Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	require.Len(t, msg.Calls, 1)
	assert.JSONEq(t, args, string(msg.Calls[0].Args))
}

// Free-form args are not a way around the bounds: the SDK's own values
// beside them are still counted, and args of "{}" elements cost what
// encoding/json makes of any JSON, bounded by the body's bytes.
func TestAttackS29ReviewFreeArgsAreNoBypass(t *testing.T) {
	const n = 262144 // "{}," each: 768 KiB
	for name, tc := range map[string]struct {
		body  string
		bound string // "" when the body is taken
	}{
		"parts after args":        {`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":[[]]}}},` + repeated("{}", n) + `]},"finishReason":"STOP"}]}`, "gemini.MaxResponseElements"},
		"args spelt with escapes": {`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","\u0061rgs":{"a":[` + repeated("{}", n) + `]}}}]},"finishReason":"STOP"}]}`, "gemini.MaxResponseElements"},
		"empty objects in args":   {`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":[` + repeated("{}", n) + `]}}}]},"finishReason":"STOP"}]}`, "gemini.MaxResponseArgsValues"},
		"args on a candidate":     {`{"candidates":[{"args":[` + repeated("{}", n) + `],"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}]}`, ""},
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

	// Args just within the bound cost the SDK what MaxResponseElements
	// values of its types may: a constant, not a multiple of the body.
	body := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":[` + repeated("{}", gemini.MaxResponseArgsValues-1) + `]}}}]},"finishReason":"STOP"}]}`
	model := jsonModel(t, body)
	var err error
	used := allocated(func() {
		_, err = model.Next(context.Background(), conversation(), nil)
	})
	t.Logf("args within the bound: %d bytes allocated to read a body of %d bytes", used, len(body))
	assert.NoError(t, err)
	assert.LessOrEqual(t, used, uint64(128<<20), "bytes allocated to read args of %d elements", gemini.MaxResponseArgsValues-1)
}
