package builtin_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// WithMaxMatches caps the matches search_files returns, also when the
// model asks for more (max_matches); the answer says it stopped.
func TestWithMaxMatchesCapsSearchFiles(t *testing.T) {
	e := newEnv(t, builtin.WithMaxMatches(5))
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("needle %d", i))
	}
	e.write(t, "a.txt", strings.Join(lines, "\n")+"\n")
	e.write(t, "b/c.txt", strings.Join(lines, "\n")+"\n")

	search := func(args map[string]any) (builtin.SearchResult, string) {
		t.Helper()
		res := e.call(t, "search_files", args)
		require.True(t, res.OK(), "%v", res.Error)
		var out builtin.SearchResult
		require.NoError(t, json.Unmarshal(res.Output, &out))
		return out, res.Text()
	}
	out, text := search(map[string]any{"pattern": "needle"})
	require.Len(t, out.Matches, 5)
	assert.True(t, out.Truncated)
	assert.Equal(t, builtin.Match{Path: "a.txt", Line: 5, Text: "needle 5"}, out.Matches[4])
	assert.Contains(t, text, "[... stopped at 5 matches: narrow the pattern, the path or the glob]")

	out, _ = search(map[string]any{"pattern": "needle", "max_matches": 100})
	assert.Len(t, out.Matches, 5, "the model cannot ask past the cap")
	assert.True(t, out.Truncated)
	out, _ = search(map[string]any{"pattern": "needle", "max_matches": 3})
	assert.Len(t, out.Matches, 3, "below the cap the model's own limit holds")

	// Within the cap nothing is cut.
	out, text = search(map[string]any{"pattern": "needle 2[0-1]$", "path": "b"})
	assert.Len(t, out.Matches, 2)
	assert.False(t, out.Truncated)
	assert.NotContains(t, text, "stopped at")

	// The default is DefaultMaxMatches.
	d := newEnv(t)
	d.write(t, "many.txt", strings.Repeat("needle\n", builtin.DefaultMaxMatches+50))
	res := d.call(t, "search_files", map[string]any{"pattern": "needle"})
	require.True(t, res.OK(), "%v", res.Error)
	var all builtin.SearchResult
	require.NoError(t, json.Unmarshal(res.Output, &all))
	assert.Len(t, all.Matches, builtin.DefaultMaxMatches)
	assert.True(t, all.Truncated)
}

// A cap of zero or less keeps the default: WithMaxMatches(0) made every
// search stop at no match, WithMaxEntries(0) every listing empty and
// WithMaxReadBytes(0) every read empty, each with a message that said the
// answer was cut.
func TestNonPositiveCapsKeepTheDefaults(t *testing.T) {
	e := newEnv(t, builtin.WithMaxMatches(0), builtin.WithMaxEntries(-1), builtin.WithMaxReadBytes(0))
	e.write(t, "a.txt", "needle\n")
	res := e.call(t, "search_files", map[string]any{"pattern": "needle"})
	require.True(t, res.OK(), "%v", res.Error)
	var found builtin.SearchResult
	require.NoError(t, json.Unmarshal(res.Output, &found))
	assert.Len(t, found.Matches, 1)
	assert.False(t, found.Truncated)

	res = e.call(t, "list_directory", map[string]any{"path": "."})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Contains(t, res.Text(), "a.txt")
	assert.NotContains(t, res.Text(), "stopped at")

	res = e.call(t, "read_file", map[string]any{"path": "a.txt"})
	require.True(t, res.OK(), "%v", res.Error)
	assert.Contains(t, res.Text(), "needle")
}
