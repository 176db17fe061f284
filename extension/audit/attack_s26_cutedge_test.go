package audit_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An outcome reads a result's text a slack past its cap, redacts it and
// then cuts it to the cap, so that a secret the cap falls in is masked
// whole. But redaction can make the text shorter than the cap (a private
// key block becomes "[REDACTED]"), and then nothing was cut: the end of
// what was read, where the read stopped inside a token, was kept. A tool
// printed a key and then a GitHub token, and the trail kept "ghp_" and 29
// of its 30 random characters (its last 6 are a checksum: the token is one
// of 62 guesses away), and the first digits of the call's pin.
func TestAttackS26ResultReadEndKeepsNoPartOfASecret(t *testing.T) {
	const limit = 100
	const readTo = limit + 4096 + 1 // the cap, the slack, and one byte that says there is more
	token := "ghp_Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9EdCbA12"
	for name, tail := range map[string]string{
		"token": " then " + token + " and more",
		"pin":   " then pin 739164 and more",
	} {
		at := strings.Index(tail, "ghp_") + 4 + 29
		if name == "pin" {
			at = strings.Index(tail, "7391") + 4
		}
		key := "-----BEGIN RSA PRIVATE KEY-----\n"
		end := "\n-----END RSA PRIVATE KEY-----\n"
		body := strings.Repeat("MIIEpAIBAAKCAQEA", (readTo-at-len(key)-len(end))/16+1)[:readTo-at-len(key)-len(end)]
		text := key + body + end + tail
		for mode, opts := range modes {
			t.Run(name+"/"+mode, func(t *testing.T) {
				rec := outcomeOf(t, func() *tool.Result {
					return &tool.Result{Content: []tool.Content{tool.TextContent(text)}}
				}, nil, append(opts, audit.WithResults(limit))...)
				assert.True(t, rec.Result.Truncated)
				assert.LessOrEqual(t, len(rec.Result.Text), limit)
				assert.NotContains(t, rec.Result.Text, "MIIE")
				assert.NotContains(t, rec.Result.Text, "Zx8Yw7Vu6T", "%q", rec.Result.Text)
				assert.NotContains(t, rec.Result.Text, "7391", "%q", rec.Result.Text)
			})
		}
	}
}
