package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// XML that names a secret in an attribute and holds it in another, or in
// the element's text: .NET's appSettings (<add key="DbPassword"
// value="…"/>), Java's XML properties (<entry key="password">…</entry>)
// and name/value parameters. The rule masks {"name": "Authorization",
// "value": "…"} in JSON, and <password>…</password> in XML, but kept these
// whole: a tool that read web.config gave its passwords to the audit trail.
func TestAttackXMLSecretNamedByAnAttribute(t *testing.T) {
	for _, in := range []string{
		`<add key="DbPassword" value="hunter2abc" />`,
		`<add value="hunter2abc" key="Stripe.ApiKey"/>`,
		`<add key='client_secret' value='hunter2abc'/>`,
		"<appSettings>\n  <add key=\"Mode\" value=\"prod\" />\n  <add key=\"SmtpPassword\" value=\"hunter2abc\" />\n</appSettings>",
		`<entry key="password">hunter2abc</entry>`,
		`<param name="access_token" value="hunter2abc"/>`,
		`<property name="jdbc.password" value="hunter2abc"/>`,
		`<setting name="ApiKey" serializeAs="String"><value>hunter2abc</value></setting>`,
	} {
		got := String(in)
		assert.NotContains(t, got, "hunter2abc", "%q -> %q", in, got)
		assert.Contains(t, got, Mask, "%q -> %q", in, got)
		assert.Equal(t, got, String(got), "stable")
		args, err := json.Marshal(map[string]string{"text": in})
		require.NoError(t, err)
		assert.NotContains(t, string(Args(args, nil)), "hunter2abc", in)
	}
	for _, plain := range []string{
		`<add key="Mode" value="prod" />`, `<entry key="user">bob</entry>`, `<param name="page" value="2"/>`,
		`<input type="password" value="">`, `<option value="a">password</option>`,
	} {
		assert.Equal(t, plain, String(plain))
	}
}

// An HTML page names its CSRF or API token in a meta tag and holds it in
// the content attribute: the rule above took the element's first text
// instead, so the token stayed and the text after the tag (a page's
// title) was masked. A meta, input or link tag has no text of its own.
func TestAttackHTMLMetaTokenNamedByAttribute(t *testing.T) {
	in := "<meta name=\"csrf-token\" content=\"hunter2abc\">\n<title>Home page</title>"
	got := String(in)
	assert.NotContains(t, got, "hunter2abc", got)
	assert.Contains(t, got, "<title>Home page</title>", got)
	in = `<input name="password" type="password"><label>Remember me</label>`
	assert.Equal(t, in, String(in), "an empty input has nothing to mask, and the label is not its text")
}
