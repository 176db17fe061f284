package dashboard

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The page was sent a call's output cut anywhere in a line 1 KiB behind,
// but the masking rule reads a secret's name across any run of spaces or
// blank lines, and a URL's password or an XML element's text as long as
// they are: a token after "Authorization: Bearer" and 3,000 spaces, a
// value under "password:" and 3,000 blank lines, a 3,000-byte password
// before its '@' or an element's text before its closing tag reached the
// page, since the cut fell between the secret and what makes it one.
func TestAttackLiveOutputSecretFarFromWhatNamesIt(t *testing.T) {
	filler := strings.Repeat("compiling a package of the project, nothing secret here\n", 40)
	pw := strings.Repeat("Zq7", 1000)
	for name, chunks := range map[string][]string{
		"bearer after spaces":    {filler + "Authorization: Bearer" + strings.Repeat(" ", 3000), "Zq7tokentokentoken\n"},
		"yaml after blank lines": {filler + "password:\n" + strings.Repeat("\n", 3000), "  Zq7tokentokentoken\n"},
		"url password":           {filler + "git clone https://deploy:" + pw[:2500], pw[2500:] + "@git.example.com/r.git\n"},
		// No line's end before the cut: it fell within the line.
		"bearer, first line": {"Authorization: Bearer" + strings.Repeat(" ", 3000), "Zq7tokentokentoken\n"},
		"url, first line":    {"git clone https://deploy:" + pw[:2500], pw[2500:] + "@git.example.com/r.git\n"},
		"xml element":        {filler + "<password>\n" + pw[:2500], pw[2500:] + "\n</password>\n"},
	} {
		require.NotContains(t, redact.String(strings.Join(chunks, "")), "Zq7", name)
		var lc liveCalls
		sent := ""
		for _, c := range chunks {
			for _, e := range lc.output(&tool.Event{Kind: tool.EventOutput, CallID: "c1", Stream: "stdout", Data: []byte(c)}) {
				sent += string(e.Data)
			}
		}
		for _, e := range lc.end(&tool.Event{Kind: tool.EventCompleted, CallID: "c1"}) {
			sent += string(e.Data)
		}
		if i := strings.Index(sent, "Zq7"); i >= 0 {
			t.Errorf("%s: the page was sent %q", name, sent[max(0, i-40):min(len(sent), i+40)])
		}
	}
}
