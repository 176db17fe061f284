package audit_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/tool"
)

// readLongRecords is readRecords for lines over bufio.Scanner's 64 KiB.
func readLongRecords(t *testing.T, path string) []audit.Record {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var recs []audit.Record
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var r audit.Record
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		recs = append(recs, r)
	}
	return recs
}

// A model names the tool it calls and its provider the call's ID: a call
// to an unknown tool whose name is megabytes long (or a call with such an
// ID) must still leave its record. Write bounds a record's own fields, so
// the extension cuts these two, and the record says so.
func TestAttackHugeToolNameOrCallIDStillRecorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var handled []error
	trail, err := audit.Open(path, audit.WithErrorHandler(func(err error) { handled = append(handled, err) }))
	require.NoError(t, err)
	f := newFixture(t, trail)
	huge := strings.Repeat("x", 2<<20)
	_, err = f.ex.Execute(context.Background(), tool.Call{ID: "u1", Name: huge, Args: json.RawMessage(`{}`)})
	require.Error(t, err)
	_, err = f.ex.Execute(context.Background(), tool.Call{ID: huge, Name: "deploy", Args: json.RawMessage(`{"env":"prod"}`)})
	require.NoError(t, err)
	require.NoError(t, trail.Close())
	assert.Empty(t, handled, "no record failed")

	recs := readLongRecords(t, path)
	require.Len(t, recs, 3, "the refused call's record, the other's intent and outcome")
	assert.Equal(t, audit.KindRefused, recs[0].Kind)
	assert.True(t, strings.HasPrefix(huge, strings.TrimSuffix(recs[0].Tool, "…")), "the name's start is kept")
	assert.Less(t, len(recs[0].Tool), 64<<10)
	assert.Contains(t, recs[0].Omitted, "tool")
	for _, r := range recs[1:] {
		assert.Less(t, len(r.CallID), 64<<10)
		assert.Contains(t, r.Omitted, "call_id")
	}
	_, err = audit.Verify(path)
	require.NoError(t, err)
}

// The executor refuses arguments over its cap before it decodes them, but
// the refused record kept them whole: the trail redacted and encoded
// whatever a client sent (hundreds of megabytes, at about 16 MB/s, in the
// caller's goroutine by default). A refused call's record leaves out
// arguments over 1 MiB, and says so.
func TestAttackOversizedArgumentsOfARefusedCallAreNotKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(path)
	require.NoError(t, err)
	f := newFixture(t, trail)
	args := json.RawMessage(`{"env":"` + strings.Repeat("a", 3<<20) + `"}`)
	_, err = f.ex.Execute(context.Background(), tool.Call{ID: "u1", Name: "deploy", Args: args})
	require.Error(t, err)
	require.NoError(t, trail.Close())
	recs := readLongRecords(t, path)
	require.Len(t, recs, 1)
	assert.Equal(t, audit.KindRefused, recs[0].Kind)
	assert.Equal(t, "invalid_arguments", recs[0].ErrorCode)
	assert.Zero(t, len(recs[0].Args), "no arguments kept")
	assert.Contains(t, recs[0].Omitted, "arguments")
}
