package wire_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A codec's errors repeated text of the payload as it was: a Gemini
// candidate's finishReason and finishMessage, an MCP request's method, a
// result's tool name (the model's, for a call refused before it ran). A
// MiB of it made a MiB of error, and a line break in it wrote a line of
// the payload's choosing into a log that writes the error as it is. Each
// is now cut short and quoted, so the error stays a line to log.
func TestAttackS30ErrorsQuoteBoundedPayloadText(t *testing.T) {
	big := "x\ntime=2026-11-29T16:00:00Z level=INFO msg=approved " + strings.Repeat("y", 1<<20)
	for _, tc := range []struct {
		name string
		err  func() error
	}{
		{"gemini finishMessage", func() error {
			_, err := wire.Gemini.Calls([]byte(fmt.Sprintf(`{"candidates":[{"finishReason":"SAFETY","finishMessage":%q}]}`, big)))
			return err
		}},
		{"gemini finishReason", func() error {
			_, err := wire.Gemini.Calls([]byte(fmt.Sprintf(`{"candidates":[{"finishReason":%q}]}`, big)))
			return err
		}},
		{"mcp method", func() error {
			_, err := wire.MCP.Calls([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q}`, big)))
			return err
		}},
		{"result without a call id", func() error {
			_, err := wire.OpenAIChat.Results([]*tool.Result{{Tool: big}})
			return err
		}},
	} {
		err := tc.err()
		require.Error(t, err, tc.name)
		assert.Less(t, len(err.Error()), 1<<10, tc.name)
		assert.False(t, strings.ContainsAny(err.Error(), "\r\n"), "%s: the error is more than a line", tc.name)
	}
}
