package audit_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// With WithSyncInterval a record is encoded after Write returns: Write
// keeps its own copy of the arguments, so a caller that reuses its buffer
// does not rewrite what the trail records.
func TestSyncIntervalCopiesArgs(t *testing.T) {
	w := &failingWriter{budget: 1 << 20}
	tr := mustNew(t, w, audit.WithSyncInterval(time.Hour))
	args := []byte(`{"path":"a.txt"}`)
	roles := []string{"reader"}
	require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "read", Args: args, Roles: roles}))
	copy(args, `{"path":"b.txt"}`)
	roles[0] = "admin"
	require.NoError(t, tr.Close())
	var rec audit.Record
	require.NoError(t, json.Unmarshal(bytes.TrimSpace(w.buf.Bytes()), &rec))
	assert.JSONEq(t, `{"path":"a.txt"}`, string(rec.Args))
	assert.Equal(t, []string{"reader"}, rec.Roles)
}

// Write refuses, at once, what could not be encoded later: the syncer
// must never meet a record that breaks the chain.
func TestSyncIntervalRefusesBadRecordsAtWrite(t *testing.T) {
	w := &failingWriter{budget: 1 << 20}
	tr := mustNew(t, w, audit.WithSyncInterval(time.Hour))
	err := tr.Write(audit.Record{Tool: "x", Args: json.RawMessage(`{"a":`)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "args: not valid JSON")
	err = tr.Write(audit.Record{Tool: "x", Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "year must be in [0, 9999]")
	require.NoError(t, tr.Write(audit.Record{Tool: "x", Args: json.RawMessage("{\"a\":\"\xff\"}")}), "invalid UTF-8 is replaced, not refused")
	require.NoError(t, tr.Close())
	rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Records)
	assert.Contains(t, w.buf.String(), "\"a\":\"\uFFFD\"")
}

// Head reports the last record written, even while it waits to be chained.
func TestSyncIntervalHeadIsTheLastWrite(t *testing.T) {
	w := &failingWriter{budget: 1 << 20}
	tr := mustNew(t, w, audit.WithSyncInterval(time.Hour))
	for range 3 {
		require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
	}
	seq, hash := tr.Head()
	assert.EqualValues(t, 3, seq)
	require.NoError(t, tr.Close())
	lines := strings.Split(strings.TrimSpace(w.buf.String()), "\n")
	require.Len(t, lines, 3)
	var last audit.Record
	require.NoError(t, json.Unmarshal([]byte(lines[2]), &last))
	assert.Equal(t, last.Hash, hash)
}

// Seq, Prev and Hash are the trail's to set, in both modes: a caller's
// Hash must not reach the line (a second "hash" field, which readers that
// take the first key would believe).
func TestWriteIgnoresCallersChainFields(t *testing.T) {
	for _, opts := range [][]audit.Option{nil, {audit.WithSyncInterval(time.Hour)}} {
		w := &failingWriter{budget: 1 << 20}
		tr := mustNew(t, w, opts...)
		require.NoError(t, tr.Write(audit.Record{Tool: "x", Seq: 7, Prev: "forged", Hash: "feedface"}))
		require.NoError(t, tr.Close())
		line := w.buf.String()
		assert.Equal(t, 1, strings.Count(line, `"hash"`), "one hash field: %s", line)
		assert.NotContains(t, line, "feedface")
		assert.NotContains(t, line, "forged")
		rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
		require.NoError(t, err)
		assert.EqualValues(t, 1, rep.LastSeq)
	}
}
