package audit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolbelt-go/toolbelt/tool"
)

// An outcome reads a result's text only to the cap and the slack past it,
// however long the call's arguments: with 1 MiB of arguments it read (and
// later redacted) as much text again (4c368e5).
func TestKeepReadsTextToTheCapAndSlack(t *testing.T) {
	tr := &Trail{resultBytes: 16}
	args := json.RawMessage(`{"blob":"` + strings.Repeat("a", 1<<20) + `"}`)
	res := &tool.Result{Content: []tool.Content{tool.TextContent(strings.Repeat("x", 1<<20))}}
	p := tr.keep(res, args)
	if want := 16 + resultSlack + 1; len(p.text) != want {
		t.Fatalf("kept %d bytes of text, want %d (the cap, the slack and one byte that says there was more)", len(p.text), want)
	}
	if r := tr.result(p, nil); len(r.Text) != 16 || !r.Truncated {
		t.Fatalf("result text %d bytes, truncated %v: want 16, true", len(r.Text), r.Truncated)
	}
}
