package audit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// The trail says who decided an approval (the approval extension puts it in
// the result's metadata; a dashboard names the person with WithIdentity),
// not only what was decided.
func TestOutcomeNamesWhoDecided(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(path)
	require.NoError(t, err)
	f := newFixture(t, trail, approver)
	_, err = f.call(t, "ok-1", false)
	require.NoError(t, err)
	require.NoError(t, trail.Close())

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var outcome string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.Contains(line, `"kind":"outcome"`) {
			outcome = line
		}
	}
	require.NotEmpty(t, outcome, "%s", b)
	assert.Contains(t, outcome, `"decided_by":"bob"`)
	var recs []audit.Record
	for _, r := range readRecords(t, path) {
		if r.Kind == audit.KindOutcome {
			recs = append(recs, r)
		}
	}
	require.Len(t, recs, 1)
	assert.Equal(t, "bob", recs[0].DecidedBy)
}
