package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Verify refuses a line over MaxLineBytes, so the trail must never write
// one: a record that would be longer (arguments and results are only as
// bounded as the executor's caps, which can be raised) is written without
// its arguments and result and with its error cut, and says so. Checked
// with the limit lowered, in both write modes.
func TestRecordOverTheLineLimitIsWrittenWithoutItsBulk(t *testing.T) {
	defer func(n int) { lineLimit = n }(lineLimit)
	lineLimit = 16 << 10
	big := strings.Repeat("\x7f", 20<<10) // 6 bytes each once escaped
	for _, opts := range [][]Option{nil, {WithSyncInterval(time.Hour)}} {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		tr, err := Open(path, opts...)
		require.NoError(t, err)
		require.NoError(t, tr.Write(Record{Kind: KindIntent, Tool: "deploy", Principal: "alice", CallID: "c1",
			Args: json.RawMessage(`{"s":"` + big + `"}`)}))
		require.NoError(t, tr.Write(Record{Kind: KindOutcome, Tool: "deploy", CallID: "c1", Status: "failed",
			Error: big, Result: &Result{Text: big, Bytes: len(big)}, Omitted: "forged by the caller"}))
		require.NoError(t, tr.Write(Record{Kind: KindIntent, Tool: "deploy", CallID: "c2", Args: json.RawMessage(`{"s":"small"}`)}))
		require.NoError(t, tr.Close())

		rep, err := Verify(path)
		require.NoError(t, err, "the trail verifies what it wrote")
		assert.Equal(t, 3, rep.Records)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		require.Len(t, lines, 3)
		var recs [3]Record
		for i, l := range lines {
			assert.LessOrEqual(t, len(l), lineLimit)
			require.NoError(t, json.Unmarshal([]byte(l), &recs[i]))
		}
		assert.Nil(t, recs[0].Args)
		assert.Contains(t, recs[0].Omitted, "arguments")
		assert.Equal(t, "alice", recs[0].Principal, "who and what are kept")
		assert.Contains(t, recs[1].Omitted, "line limit")
		assert.NotContains(t, recs[1].Omitted, "forged", "a caller cannot set it")
		assert.Equal(t, "failed", recs[1].Status)
		assert.LessOrEqual(t, len(recs[1].Error), lineLimit/16)
		require.NotNil(t, recs[1].Result)
		assert.Equal(t, len(big), recs[1].Result.Bytes)
		assert.True(t, recs[1].Result.Truncated)
		assert.Empty(t, recs[1].Result.Text)
		assert.Empty(t, recs[2].Omitted, "a caller cannot set it, and a small record keeps everything")
		assert.JSONEq(t, `{"s":"small"}`, string(recs[2].Args))
	}
}

// A record's own fields (tool, principal, roles...) are never left out, so
// they are bounded at Write, in every mode.
func TestRecordFieldsAreBounded(t *testing.T) {
	for _, opts := range [][]Option{nil, {WithSyncInterval(time.Hour)}} {
		tr, err := Open(filepath.Join(t.TempDir(), "audit.jsonl"), opts...)
		require.NoError(t, err)
		err = tr.Write(Record{Kind: KindIntent, Tool: "deploy", Principal: strings.Repeat("a", maxFieldBytes+1)})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "shorten them")
		require.NoError(t, tr.Write(Record{Kind: KindIntent, Tool: "deploy"}), "the trail goes on")
		require.NoError(t, tr.Close())
	}
}
