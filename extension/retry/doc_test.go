package retry_test

import (
	"context"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/retry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The docs say which tools are retried, and the code retries exactly those:
// each way the docs list makes a tool retried, and a tool with none of them
// runs once. A new way (or one dropped) fails here until the docs follow.
func TestDocsNameTheToolsThatRetry(t *testing.T) {
	ways := []struct {
		name     string
		guide    string // how docs/extensions.md names it
		pkgDoc   string // how the package doc names it
		toolOpts []tool.Option
		retryOps []retry.Option
	}{
		{"idempotent", "idempotent", "Idempotent", []tool.Option{tool.WithAnnotations(tool.Annotations{Idempotent: true})}, nil},
		{"read-only", "read-only", "ReadOnly", []tool.Option{tool.WithAnnotations(tool.Annotations{ReadOnly: true})}, nil},
		{"listed", "`SafeTools`", "SafeTools", nil, []retry.Option{retry.SafeTools("t")}},
		{"tagged", "tagged `" + retry.TagSafe + "`", `tagged "` + retry.TagSafe + `"`, []tool.Option{tool.WithTags(retry.TagSafe)}, nil},
	}

	raw, err := os.ReadFile("../../docs/extensions.md")
	require.NoError(t, err)
	guide := strings.Join(strings.Fields(string(raw)), " ")
	m := regexp.MustCompile("`retry.New\\(opts...\\)`: [^-]*only for tools safe to repeat \\(([^)]*)\\)").FindStringSubmatch(guide)
	require.NotNil(t, m, "docs/extensions.md no longer says which tools retry.New retries")
	listed := strings.Split(strings.NewReplacer(", or ", ", ", " or ", ", ").Replace(m[1]), ", ")
	assert.Len(t, listed, len(ways), "the guide lists %q", m[1])

	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "retry.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	pkgDoc := strings.Join(strings.Fields(f.Doc.Text()), " ")
	pm := regexp.MustCompile(`only tools that are safe to repeat: (.*?)\. Anything else runs once`).FindStringSubmatch(pkgDoc)
	require.NotNil(t, pm, "the package doc no longer says which tools are retried")

	for _, w := range ways {
		assert.Contains(t, m[1], w.guide, "docs/extensions.md names the %s way", w.name)
		assert.Contains(t, pm[1], w.pkgDoc, "the package doc names the %s way", w.name)
		synctest.Test(t, func(t *testing.T) {
			f := &flaky{fails: -1, err: unavailable}
			_, err := setup(t, f, retry.New(w.retryOps...), w.toolOpts...).Execute(context.Background(), call())
			require.ErrorIs(t, err, tool.ErrUnavailable)
			assert.Equal(t, int64(retry.DefaultMaxAttempts), f.runs.Load(), "a %s tool is retried, as documented", w.name)
		})
	}
	synctest.Test(t, func(t *testing.T) {
		f := &flaky{fails: -1, err: unavailable}
		_, err := setup(t, f, retry.New()).Execute(context.Background(), call())
		require.ErrorIs(t, err, tool.ErrUnavailable)
		assert.Equal(t, int64(1), f.runs.Load(), "a tool with none of the documented marks runs once")
	})
}
