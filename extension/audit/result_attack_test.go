package audit_test

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Attacks on the results outcome records keep. The call's secret argument
// (resultTool's pin) is 739164.

// A tool that echoes the call's secret into its structured output (a
// message, a number, a key, or spelt with JSON escapes, which every reader
// decodes to the secret) has it masked there as in its text and error
// messages. Before, the output got only the name and string rules: the pin
// reached the trail file four times.
func TestResultOutputMasksEchoedSecrets(t *testing.T) {
	for mode, opts := range modes {
		t.Run(mode, func(t *testing.T) {
			rec := outcomeOf(t, func() *tool.Result {
				return &tool.Result{Output: json.RawMessage(
					`{"message":"pin 739164 accepted","code":739164,"739164":true,"escaped":"\u0037\u0033\u0039\u0031\u0036\u0034","user":"alice"}`)}
			}, nil, opts...)
			out := string(rec.Result.Output)
			assert.True(t, json.Valid(rec.Result.Output), "%s", out)
			var got map[string]any
			require.NoError(t, json.Unmarshal(rec.Result.Output, &got))
			line, _ := json.Marshal(got) // decoded: escapes are no hiding place
			assert.NotContains(t, string(line), "739164", "%s", out)
			assert.Equal(t, "alice", got["user"], "the rest of the output stays")
			assert.Equal(t, "pin [REDACTED] accepted", got["message"])
		})
	}
}

// The text is cut at the cap after it is redacted, not before: a secret
// the cap fell in the middle of was cut to a prefix that no rule
// recognised any more ("pin 7391" reached the trail).
func TestResultCutKeepsNoPartOfASecret(t *testing.T) {
	text := strings.Repeat("a", 100) + " pin 739164 accepted; token=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	for mode, opts := range modes {
		t.Run(mode, func(t *testing.T) {
			for _, limit := range []int{107, 108, 109, 110, 115, 130, 135} {
				rec := outcomeOf(t, func() *tool.Result {
					return &tool.Result{Content: []tool.Content{tool.TextContent(text)}}
				}, nil, append(opts, audit.WithResults(limit))...)
				assert.LessOrEqual(t, len(rec.Result.Text), limit)
				assert.True(t, rec.Result.Truncated)
				assert.NotContains(t, rec.Result.Text, "7391", "cap %d", limit)
				assert.NotContains(t, rec.Result.Text, "0123456789", "cap %d", limit)
				assert.True(t, strings.HasPrefix(rec.Result.Text, strings.Repeat("a", 100)+" pin "), "cap %d: %q", limit, rec.Result.Text)
			}
		})
	}
}

// Batched, a record is encoded after Execute returned: what it masks must
// not be read from the caller's arguments then, which the caller may have
// reused (the pin reached the trail, and -race saw the syncer read what
// the caller wrote).
func TestResultEchoesAreNotReadFromTheCallersArgs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(path, audit.WithKey(testKey), audit.WithSyncInterval(time.Hour))
	require.NoError(t, err)
	reg := registry.New()
	reg.MustRegister(resultTool(func() *tool.Result {
		return &tool.Result{Content: []tool.Content{tool.TextContent("pin 739164 accepted")}}
	}))
	ex := executor.MustNew(reg, executor.WithExtensions(trail))
	args := []byte(`{"pin":"739164"}`)
	_, err = ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "report", Args: args})
	require.NoError(t, err)
	copy(args, `{"pin":"000000"}`) // the caller reuses its buffer
	require.NoError(t, trail.Close())
	recs := readRecords(t, path)
	require.Len(t, recs, 2)
	assert.Equal(t, "pin [REDACTED] accepted", recs[1].Result.Text)
}

// WithResults(math.MaxInt), "keep everything", keeps the text: the
// budget's arithmetic overflowed and the text was dropped, with Truncated
// false.
func TestResultCapOfMaxInt(t *testing.T) {
	for mode, opts := range modes {
		t.Run(mode, func(t *testing.T) {
			rec := outcomeOf(t, func() *tool.Result {
				return &tool.Result{Content: []tool.Content{tool.TextContent("all of it")}}
			}, nil, append(opts, audit.WithResults(math.MaxInt))...)
			assert.Equal(t, "all of it", rec.Result.Text)
			assert.False(t, rec.Result.Truncated)
		})
	}
}

// Text that is not UTF-8 is cut at the cap, not emptied: the cut looked
// back for the start of a rune through any number of continuation bytes,
// so a tool printing them first left nothing of its text in the record.
func TestResultCutOfInvalidUTF8(t *testing.T) {
	for mode, opts := range modes {
		t.Run(mode, func(t *testing.T) {
			rec := outcomeOf(t, func() *tool.Result {
				return &tool.Result{Content: []tool.Content{tool.TextContent(strings.Repeat("\x80", 40) + "visible")}}
			}, nil, append(opts, audit.WithResults(30))...)
			assert.True(t, rec.Result.Truncated)
			assert.Equal(t, strings.Repeat("\uFFFD", 30), rec.Result.Text, "each byte that is not UTF-8 reads as U+FFFD")
		})
	}
}

// Text read past the cap and then shortened by redaction (a long private
// key masked) is still marked cut when the tool returned more than was
// read.
func TestResultCutBeforeRedactionIsMarked(t *testing.T) {
	text := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEA1234567890abcdef\n", 100) + "-----END RSA PRIVATE KEY-----\n" + strings.Repeat("b", 4000)
	for mode, opts := range modes {
		t.Run(mode, func(t *testing.T) {
			rec := outcomeOf(t, func() *tool.Result {
				return &tool.Result{Content: []tool.Content{tool.TextContent(text)}}
			}, nil, append(opts, audit.WithResults(100))...)
			assert.True(t, rec.Result.Truncated, "%q", rec.Result.Text)
			assert.NotContains(t, rec.Result.Text, "MIIE")
		})
	}
}
