package audit_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/tool"
)

// nested is a JSON value of depth lists, one in another.
func nested(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// A client's arguments nested 9,999 deep are valid JSON (encoding/json
// reads up to 10,000 levels), and the executor refuses them (64 at most),
// but the refused call's record kept them: inside the record they were
// 10,000 deep and the line 10,001, which Verify's own reading of the
// record refused, so the trail failed as "not an audit record" at that
// line, and Open refused to extend it: one call made an intact trail look
// tampered with and stopped every later call. A tool's structured output
// (written by a tool, or by Write's caller) did the same one level
// shallower. Seen failing first: Verify broke at line 1 in both write
// modes. Such a record now leaves the value out and says so in Omitted.
func TestAttackS19DeepArgumentsDoNotBreakTheTrail(t *testing.T) {
	for _, interval := range []time.Duration{0, time.Hour} {
		t.Run(interval.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			opts := []audit.Option{audit.WithKey(testKey)}
			if interval > 0 {
				opts = append(opts, audit.WithSyncInterval(interval))
			}
			trail, err := audit.Open(path, opts...)
			require.NoError(t, err)
			f := newFixture(t, trail)
			_, err = f.ex.Execute(context.Background(), tool.Call{ID: "deep", Name: "deploy", Args: json.RawMessage(`{"env":` + nested(9999) + `}`)})
			require.Error(t, err, "the executor refuses it")
			require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "deploy", Args: json.RawMessage(nested(10000))}))
			require.NoError(t, trail.Write(audit.Record{Kind: audit.KindOutcome, Tool: "deploy", Result: &audit.Result{Output: json.RawMessage(nested(9999)), Bytes: 2 * 9999}}))
			// Values one level shallower fit, and are kept whole.
			require.NoError(t, trail.Write(audit.Record{Kind: audit.KindIntent, Tool: "deploy", Args: json.RawMessage(nested(9999))}))
			require.NoError(t, trail.Write(audit.Record{Kind: audit.KindOutcome, Tool: "deploy", Result: &audit.Result{Output: json.RawMessage(nested(9998)), Bytes: 2 * 9998}}))
			_, err = f.call(t, "after", false)
			require.NoError(t, err, "later calls run")
			require.NoError(t, trail.Close())

			rep, err := audit.Verify(path, audit.WithKey(testKey))
			require.NoError(t, err)
			assert.Equal(t, 7, rep.Records)
			trail, err = audit.Open(path, opts...)
			require.NoError(t, err, "the trail is extended")
			require.NoError(t, trail.Close())

			recs := readRecords(t, path)
			require.Len(t, recs, 7)
			for i := range 3 {
				assert.Contains(t, recs[i].Omitted, "nested", "record %d", i+1)
			}
			assert.Empty(t, recs[0].Args)
			assert.Empty(t, recs[1].Args)
			require.NotNil(t, recs[2].Result)
			assert.Empty(t, recs[2].Result.Output)
			assert.True(t, recs[2].Result.Truncated)
			assert.Equal(t, 2*9999, recs[2].Result.Bytes)
			assert.Len(t, recs[3].Args, 2*9999)
			assert.Empty(t, recs[3].Omitted)
			assert.Len(t, recs[4].Result.Output, 2*9998)
			assert.Empty(t, recs[4].Omitted)
		})
	}
}
