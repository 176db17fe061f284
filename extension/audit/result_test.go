package audit_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// resultTool returns res for every call; its one argument is a secret.
type resultTool func() *tool.Result

func (resultTool) Spec() tool.Spec {
	return tool.Spec{Name: "report", Description: "Report", Secrets: []string{"pin"},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"pin":{"type":"string"}}}`)}
}

func (r resultTool) Run(context.Context, tool.Call) (*tool.Result, error) { return r(), nil }

// outcomeOf runs one call of a tool returning res through a trail made with
// opts (in both of the trail's modes) and returns the outcome record and
// the result the caller got.
func outcomeOf(t *testing.T, res func() *tool.Result, mutate func(*tool.Result), opts ...audit.Option) audit.Record {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(path, append([]audit.Option{audit.WithKey(testKey)}, opts...)...)
	require.NoError(t, err)
	reg := registry.New()
	reg.MustRegister(resultTool(res))
	ex := executor.MustNew(reg, executor.WithExtensions(trail))
	got, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "report", Args: json.RawMessage(`{"pin":"739164"}`)})
	require.NoError(t, err)
	if mutate != nil {
		mutate(got)
	}
	require.NoError(t, trail.Close())
	rep, err := audit.Verify(path, audit.WithKey(testKey))
	require.NoError(t, err, "a trail with results verifies")
	require.Equal(t, 2, rep.Records)
	recs := readRecords(t, path)
	require.Len(t, recs, 2)
	require.Equal(t, audit.KindOutcome, recs[1].Kind)
	assert.Nil(t, recs[0].Result, "an intent has no result")
	require.NotNil(t, recs[1].Result, "the outcome keeps the result")
	return recs[1]
}

// modes are the trail's two ways of writing: per record, and batched by a
// goroutine that redacts and encodes what calls queued.
var modes = map[string][]audit.Option{
	"per-record": nil,
	"batched":    {audit.WithSyncInterval(time.Hour)},
}

// The outcome keeps what the tool returned, as the model was given it:
// structured output and text, with its size.
func TestOutcomeKeepsTheResult(t *testing.T) {
	for mode, opts := range modes {
		t.Run(mode, func(t *testing.T) {
			rec := outcomeOf(t, func() *tool.Result {
				return &tool.Result{Output: json.RawMessage(`{"rows":3}`), Content: []tool.Content{tool.TextContent("3 rows"), tool.TextContent("done")}}
			}, nil, opts...)
			assert.JSONEq(t, `{"rows":3}`, string(rec.Result.Output))
			assert.Equal(t, "3 rows\ndone", rec.Result.Text)
			assert.Equal(t, len(`{"rows":3}`)+len("3 rows")+len("done"), rec.Result.Bytes)
			assert.False(t, rec.Result.Truncated)
		})
	}
}

// A result is redacted by the rule that redacts arguments and error
// messages: names that look secret in the output, secrets inside strings,
// and the call's secret argument values wherever the tool echoed them.
func TestResultIsRedacted(t *testing.T) {
	for mode, opts := range modes {
		t.Run(mode, func(t *testing.T) {
			rec := outcomeOf(t, func() *tool.Result {
				return &tool.Result{
					Output:  json.RawMessage(`{"user":"alice","api_key":"k-9f8e7d6c5b4a"}`),
					Content: []tool.Content{tool.TextContent("pin 739164 accepted; export PASSWORD=hunter2hunter2")},
				}
			}, nil, opts...)
			line, _ := json.Marshal(rec.Result)
			assert.NotContains(t, string(line), "k-9f8e7d6c5b4a", "a secret-looking name in the output")
			assert.NotContains(t, string(line), "739164", "the call's secret echoed")
			assert.NotContains(t, string(line), "hunter2hunter2", "a secret inside a string")
			assert.Contains(t, string(rec.Result.Output), `"user":"alice"`, "the rest of the output stays")
			assert.Contains(t, rec.Result.Text, "accepted", "the rest of the text stays")
		})
	}
}

// A result over the cap: the structured output is kept whole or not at
// all (cut, it would not be JSON), the text is cut on a rune boundary, and
// the record says so; the size is always the whole result's.
func TestResultCap(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes
	output := json.RawMessage(`{"k":"0123456789"}`)
	for mode, opts := range modes {
		t.Run(mode, func(t *testing.T) {
			res := func() *tool.Result {
				return &tool.Result{Output: output, Content: []tool.Content{tool.TextContent(long), tool.TextContent("tail")}}
			}
			whole := len(output) + len(long) + len("tail")

			rec := outcomeOf(t, res, nil, append(opts, audit.WithResults(len(output)+11))...)
			assert.JSONEq(t, string(output), string(rec.Result.Output))
			assert.True(t, utf8.ValidString(rec.Result.Text))
			assert.Equal(t, strings.Repeat("é", 5), rec.Result.Text, "11 bytes left: five runes, not half a sixth")
			assert.True(t, rec.Result.Truncated)
			assert.Equal(t, whole, rec.Result.Bytes)

			rec = outcomeOf(t, res, nil, append(opts, audit.WithResults(10))...)
			assert.Empty(t, rec.Result.Output, "an output over the cap is left out")
			assert.Equal(t, strings.Repeat("é", 5), rec.Result.Text)
			assert.True(t, rec.Result.Truncated)

			rec = outcomeOf(t, res, nil, append(opts, audit.WithResults(len(output)+len(long)+1+len("tail")))...)
			assert.Equal(t, long+"\ntail", rec.Result.Text, "exactly the cap: nothing cut")
			assert.False(t, rec.Result.Truncated)

			rec = outcomeOf(t, res, nil, append(opts, audit.WithResults(len(output)+len(long)))...)
			assert.Equal(t, long, rec.Result.Text, "a block that ends at the cap, and one more after it")
			assert.True(t, rec.Result.Truncated)

			rec = outcomeOf(t, res, nil, append(opts, audit.WithResults(0))...)
			assert.Empty(t, rec.Result.Output)
			assert.Empty(t, rec.Result.Text)
			assert.Equal(t, whole, rec.Result.Bytes, "with 0 a record keeps only the size")
		})
	}
}

// A caller may change the result it got as soon as the call returns; the
// record keeps what the tool returned. In batched mode the record is
// encoded later (here at Close), so it must hold copies.
func TestResultIsTheRecordsOwn(t *testing.T) {
	for mode, opts := range modes {
		t.Run(mode, func(t *testing.T) {
			rec := outcomeOf(t, func() *tool.Result {
				return &tool.Result{Output: json.RawMessage(`{"n":1}`)}
			}, func(got *tool.Result) {
				copy(got.Output, `{"n":9}`)
			}, opts...)
			assert.JSONEq(t, `{"n":1}`, string(rec.Result.Output))
		})
	}
}

// A record written by hand is checked as it is accepted: a result whose
// output is not JSON is refused with the field named, in either mode.
func TestWriteRefusesAResultThatIsNotJSON(t *testing.T) {
	for mode, opts := range modes {
		t.Run(mode, func(t *testing.T) {
			trail, err := audit.Open(filepath.Join(t.TempDir(), "audit.jsonl"), opts...)
			require.NoError(t, err)
			defer trail.Close()
			err = trail.Write(audit.Record{Kind: audit.KindOutcome, Tool: "t", Result: &audit.Result{Output: json.RawMessage(`{"a":`)}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "result")
		})
	}
}
