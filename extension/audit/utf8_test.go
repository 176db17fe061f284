package audit_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// Arguments with invalid UTF-8 (which the tool decodes as U+FFFD) must not
// put invalid UTF-8 in a record: readers would disagree on what the line
// says (some replace the bytes, some refuse the line), and a shared sink
// storing text (PostgreSQL) refuses it, failing the call.
func TestRecordsAreValidUTF8(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(path, audit.WithKey(testKey))
	require.NoError(t, err)
	var got string
	reg := registry.New()
	reg.MustRegister(tool.Func("echo", "Echo", func(_ context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		got = in.Text
		return in.Text, nil
	}))
	ex := executor.MustNew(reg, executor.WithExtensions(trail))
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "echo", Args: json.RawMessage("{\"text\":\"a\xffb\xc3\"}")})
	require.NoError(t, err)
	require.Nil(t, res.Error)
	require.NoError(t, trail.Close())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, utf8.Valid(raw), "every record is valid UTF-8: %q", raw)
	recs := readRecords(t, path)
	require.NotEmpty(t, recs)
	var args struct{ Text string }
	require.NoError(t, json.Unmarshal(recs[0].Args, &args))
	assert.Equal(t, got, args.Text, "the record says what the tool read")
	_, err = audit.Verify(path, audit.WithKey(testKey))
	require.NoError(t, err)
}
