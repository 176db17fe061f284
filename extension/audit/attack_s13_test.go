package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// invisibleControls are characters a terminal acts on instead of printing:
// DEL, the C1 controls (VTE, GNU screen and Mosh read a UTF-8 U+009B as
// CSI, U+009D as OSC and U+0085 as a line break) and the bidirectional
// overrides and isolates, which reorder what is shown.
var invisibleControls = []rune{
	0x7f, 0x80, 0x85, 0x9b, 0x9c, 0x9d, 0x9f,
	0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
}

// A tool call's arguments, its output, its error and a refused call's tool
// name are the model's or the tool's to choose. A record holding a C1
// control as a raw character is JSON all the same, but `tail -f` of the
// trail in GNOME Terminal (VTE) runs it: U+009B "1A" U+009B "2K" moves up
// and erases the line before, so whoever reads the trail does not see the
// record an agent wanted hidden, and U+0085 starts a new screen line that
// can pass for a record of its own. Records write such characters as JSON
// escapes (\u009b), which decode to the same text: the record says what
// the call said, and Verify still checks the line's bytes.
func TestAttackRecordsHoldNoTerminalControls(t *testing.T) {
	hide := "\u009b1A\u009b2K\u009b1A\u009b2K"
	fake := "ok\u0085{\"seq\":2,\"kind\":\"outcome\",\"tool\":\"deploy\",\"status\":\"succeeded\"}\u007f\u202eevil\u202c\u2066x\u2069\u0080\u009c\u009d0;title\u009f"
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(path, audit.WithKey(testKey))
	require.NoError(t, err)
	reg := registry.New()
	reg.MustRegister(tool.Func("say", "Say", func(_ context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text + fake, nil
	}))
	reg.MustRegister(tool.Func("fail", "Fail", func(_ context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return "", &tool.Error{Code: tool.CodeInvalidArguments, Message: "bad " + in.Text}
	}))
	ex := executor.MustNew(reg, executor.WithExtensions(trail))
	args, err := json.Marshal(map[string]string{"text": hide + fake})
	require.NoError(t, err)
	ctx := tool.WithPrincipal(context.Background(), tool.Principal{ID: "bob" + hide})
	res, err := ex.Execute(ctx, tool.Call{ID: "c1" + hide, Name: "say", Args: args, Session: "s" + fake})
	require.NoError(t, err)
	require.Nil(t, res.Error)
	_, _ = ex.Execute(ctx, tool.Call{ID: "c2", Name: "fail", Args: args})
	_, _ = ex.Execute(ctx, tool.Call{ID: "c3", Name: "nope" + hide, Args: args})
	require.NoError(t, trail.Close())

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, utf8.Valid(raw))
	assert.Empty(t, rawControls(string(raw)), "characters a record holds raw, which a terminal acts on")
	recs := readRecords(t, path)
	require.Len(t, recs, 5, "intent and outcome of two calls, and the refused one")
	var in struct{ Text string }
	require.NoError(t, json.Unmarshal(recs[0].Args, &in))
	assert.Equal(t, hide+fake, in.Text, "the record decodes to what the call said")
	assert.Equal(t, "c1"+hide, recs[0].CallID)
	assert.Equal(t, "bob"+hide, recs[0].Principal)
	require.NotNil(t, recs[1].Result)
	assert.Contains(t, recs[1].Result.Text+string(recs[1].Result.Output), fake)
	assert.Equal(t, "nope"+hide, recs[4].Tool)
	rep, err := audit.Verify(path, audit.WithKey(testKey))
	require.NoError(t, err)
	assert.Equal(t, 5, rep.Records)
}

// rawControls lists the invisibleControls s holds, each once.
func rawControls(s string) []string {
	var found []string
	for _, r := range s {
		if slices.Contains(invisibleControls, r) && !slices.Contains(found, fmt.Sprintf("%U", r)) {
			found = append(found, fmt.Sprintf("%U", r))
		}
	}
	return found
}
