package policy_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/internal/hostpath"
	"github.com/toolbelt-go/toolbelt/tool"
)

// TestAttackS32ReviewFileURLHeadPastTheBuffer: startsFileURL reads at
// most len("view-source:jar:file:") = 21 bytes of a string's head before
// asking hostpath.FileURLPath, which itself skips the blanks after
// "jar:" and takes view-source: and jar: nested to any depth. A file:
// URL whose "file:" starts past byte 21 of the head (blanks after
// "jar:", view-source: twice, jar: five times) is one FileURLPath reads
// as /etc/passwd, but a top-level string value is not judged.
func TestAttackS32ReviewFileURLHeadPastTheBuffer(t *testing.T) {
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["/etc/**"]}`))
	require.NoError(t, err)
	spec := tool.Func("fetch", "Fetch a URL", func(context.Context, struct {
		URL string `json:"url"`
	}) (string, error) {
		return "", nil
	}).Spec()
	for _, u := range []string{
		"jar:" + strings.Repeat(" ", 20) + "file:///etc/passwd!/x",
		"view-source:view-source:file:///etc/passwd",
		"jar:jar:jar:jar:jar:file:///etc/passwd!/a!/b!/c!/d!/e",
		"view-source:jar:" + strings.Repeat("\u0001", 8) + "file:///etc/passwd!/x",
		"view-source:jar: file:///etc/passwd!/x",
		"view-source:jar:\x00FILE:///etc/passwd!/x",
		"jar:jar:view-source:file:///etc/passwd!/a",
	} {
		fp, ok := hostpath.FileURLPath(u)
		require.True(t, ok, u)
		require.Equal(t, "/etc/passwd", fp, u)
		b, err := json.Marshal(map[string]string{"url": u})
		require.NoError(t, err)
		_, err = p.Evaluate("normal", &spec, b)
		assert.Error(t, err, "%s (FileURLPath: %s) allowed", b, fp)
	}
}
