package policy_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// s32URLSpellings are JSON strings (as the model sends them, escapes
// and all) of file: URLs that open /etc/passwd or ~/.ssh/id in a
// browser or a fetch tool.
var s32URLSpellings = []string{
	`"file:///etc/passwd"`, `"FILE:///etc/passwd"`, `"FiLe:///etc/passwd"`, `"file:/etc/passwd"`, `"file:etc/passwd"`,
	`"file://localhost/etc/passwd"`, `"file://host/etc/passwd"`, `"file:////etc/passwd"`, `"file:///etc//passwd"`,
	`"file:///etc/./passwd"`, `"file:///tmp/../etc/passwd"`, `"file:///%65tc/passwd"`, `"file:///%65%74%63/passwd"`,
	`"file:///etc%2fpasswd"`, `"file:///etc/passwd#%zz"`, `"file:///etc/passwd?x=%zz"`, `"file:\\\\\\etc\\passwd"`,
	`"file:///etc\\passwd"`, `" file:///etc/passwd"`, `"\tfile:///etc/passwd"`, `"\n\r file:///etc/passwd"`,
	`"\u0000file:///etc/passwd"`, `"\u001ffile:///etc/passwd"`, `"\b\ffile:///etc/passwd"`, `"fi\tle:///etc/passwd"`,
	`"f\nile:///etc/passwd"`, `"\u0066ile:///etc/passwd"`, `"\u0046ILE:///etc/passwd"`, `"file\u003a///etc/passwd"`,
	`"file\u003a\/\/\/etc\/passwd"`, `"file:\/\/\/etc\/passwd"`, `"view-source:file:///etc/passwd"`,
	`"VIEW-SOURCE:FILE:///etc/passwd"`, `"view-source: file:///etc/passwd"`, `"view-source:\tfile:///etc/passwd"`,
	`"view-source:    file:///etc/passwd"`, `"jar:file:///etc/passwd!/x"`, `"JAR:file:///etc/passwd!/x"`,
	`"jar:jar:file:///etc/passwd!/a!/b"`, `"view-source:jar:file:///etc/passwd!/x"`,
	`"view-source: jar:file:///etc/passwd!/x"`, `"jar:view-source:file:///etc/passwd"`, `"jar: file:///etc/passwd!/x"`,
	`"jar:\u0066ile:///etc/passwd!/x"`, `"\u0076iew-source:file:///etc/passwd"`, `"file:///home/u/.ssh/id"`,
	`"file:///home/u/%2essh/id"`, `"file:.ssh/id"`, `"file:///etc"`, `"file:///etc/"`, `"file:///proc/self/root/etc/passwd"`,
	`"file://[::1]/etc/passwd"`, `"file://localhost:80/etc/passwd"`, `"file://user@host/etc/passwd"`,
}

// TestAttackS32ReviewFileURLSpellings, on 3b5bcc5's fileURLPaths (its
// string declared past the check) and startsFileURL (its head read into
// a buffer of the longest head's length): every spelling of a file: URL
// of /etc/passwd or an .ssh file (scheme in any case, blanks, controls
// and JSON escapes before or inside it, view-source:, jar:, both, hosts,
// percent escapes, backslashes) in a field that is no path field, as a
// value, in a list and in a nested object, is refused by a policy that
// forbids /etc/** and **/.ssh/**; the same URLs of a project file are
// allowed.
func TestAttackS32ReviewFileURLSpellings(t *testing.T) {
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["/etc/**", "**/.ssh/**"]}`))
	require.NoError(t, err)
	spec := tool.Func("fetch", "Fetch a URL", func(context.Context, struct {
		URL string `json:"url"`
	}) (string, error) {
		return "", nil
	}).Spec()
	refused := 0
	for _, u := range s32URLSpellings {
		var s string
		require.NoError(t, json.Unmarshal([]byte(u), &s), "%s is JSON", u)
		for _, args := range []string{`{"url":` + u + `}`, `{"url":[` + u + `]}`, `{"request":{"url":` + u + `}}`, `{"h":{` + u + `:1}}`} {
			rule, err := p.Evaluate("normal", &spec, json.RawMessage(args))
			if assert.Error(t, err, "%s allowed", args) {
				assert.Equal(t, "global.forbidden_paths", rule, "%s: %v", args, err)
				refused++
			}
		}
	}
	allowed := 0
	for _, u := range []string{`"file:///srv/project/readme.md"`, `"view-source:file:///srv/x"`, `"jar:file:///srv/a.zip!/etc/passwd"`, `"https://example.com/etc/passwd"`, `"files:///etc/passwd"`, `"file-etc-passwd"`} {
		rule, err := p.Evaluate("normal", &spec, json.RawMessage(`{"url":`+u+`}`))
		if assert.NoError(t, err, "%s refused (%s)", u, rule) {
			allowed++
		}
	}
	t.Logf("%d of %d forms refused, %d of 6 other URLs allowed", refused, 4*len(s32URLSpellings), allowed)
}
