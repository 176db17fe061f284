package redact

import (
	"bytes"
	"html"
	"html/template"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An HTML error page echoes a secret with its special characters escaped:
// html/template writes '+' (common in base64 keys) as &#43;, so "qk+live"
// came back as "qk&#43;live", which Scrub did not know (seen by the
// reviewer of the HTTP tool's masking: the key reached the model).
func TestScrubFindsHTMLEscapedEchoes(t *testing.T) {
	secret := `qk+live/Fz3Ys6Ae9Io&x<y>"'`
	var page bytes.Buffer
	require.NoError(t, template.Must(template.New("p").Parse(`<p>invalid key {{.}}</p>`)).Execute(&page, secret))
	for _, echo := range []string{
		page.String(),
		"<p>invalid key " + html.EscapeString(secret) + "</p>",
		"<p>invalid key qk+live/Fz3Ys6Ae9Io&amp;x&lt;y&gt;&quot;&#x27;</p>",
	} {
		out := Scrub(echo, []string{secret})
		assert.NotContains(t, out, "Fz3Ys6Ae9Io", "echo %q gave %q", echo, out)
		assert.Contains(t, out, Mask)
	}
	assert.Equal(t, "a &amp; b", Scrub("a &amp; b", []string{"x&y-long-secret"}), "other text is left alone")
}
