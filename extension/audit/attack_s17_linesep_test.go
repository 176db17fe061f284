package audit_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// An attack on the trail's lines with the characters that end a line for
// some reader: U+2028 and U+2029 (Python's str.splitlines, editors, log
// viewers), U+0085, CR and LF, followed by a record of the attacker's, in
// every string a model or a tool chooses: the tool name of a refused call,
// the call id, the arguments (raw in valid JSON, nothing to redact: they
// are written as sent), the error, the result's text and its structured
// output. It held: encoding/json escapes U+2028 and U+2029 in strings and,
// with HTML escaping on (the trail's encoder), in the raw arguments and
// output; termesc escapes the C1 controls. Each call leaves its records,
// one line each, which decode to what was sent and verify. It can fail: an
// encoder with SetEscapeHTML(false) writes U+2028 raw in the arguments.
func TestAttackS17RecordsHoldNoLineSeparators(t *testing.T) {
	const forged = "\u2028\u2029\u0085\r\n{\"seq\":2,\"kind\":\"outcome\",\"tool\":\"deploy\",\"status\":\"succeeded\"}"
	for _, batched := range []bool{false, true} {
		t.Run(map[bool]string{false: "per record", true: "batched"}[batched], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			opts := []audit.Option{audit.WithKey(testKey)}
			if batched {
				opts = append(opts, audit.WithSyncInterval(time.Hour))
			}
			trail, err := audit.Open(path, opts...)
			require.NoError(t, err)
			reg := registry.New()
			reg.MustRegister(tool.New("echo", "Echo", func(_ context.Context, c tool.Call) (*tool.Result, error) {
				return &tool.Result{Output: c.Args, Content: []tool.Content{tool.TextContent("said " + forged)}},
					tool.NewError(tool.CodeUnavailable, "failed "+forged)
			}))
			ex := executor.MustNew(reg, executor.WithExtensions(trail))
			quoted, err := json.Marshal(forged)
			require.NoError(t, err)
			// Raw U+2028, U+2029 and U+0085 in the JSON text; CR and LF
			// must be escaped to be JSON at all.
			raw := strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029", `\u0085`, "\u0085").Replace(string(quoted))
			args := json.RawMessage(`{"text":` + raw + `}`)
			require.True(t, json.Valid(args))
			require.Contains(t, string(args), "\u2028")
			_, _ = ex.Execute(context.Background(), tool.Call{ID: "c1" + forged, Name: "echo", Args: args})
			_, _ = ex.Execute(context.Background(), tool.Call{ID: "c2" + forged, Name: "nope" + forged, Args: args})
			require.NoError(t, trail.Close())

			b, err := os.ReadFile(path)
			require.NoError(t, err)
			for _, r := range []string{"\u2028", "\u2029", "\u0085", "\r"} {
				assert.NotContains(t, string(b), r, "a raw %U in the trail", []rune(r)[0])
			}
			assert.Equal(t, 3, strings.Count(string(b), "\n"), "intent, outcome and refused: one line each")
			recs := readRecords(t, path)
			require.Len(t, recs, 3)
			var in struct{ Text string }
			require.NoError(t, json.Unmarshal(recs[0].Args, &in))
			assert.Equal(t, forged, in.Text, "the arguments decode to what was sent")
			assert.Equal(t, "c1"+forged, recs[0].CallID)
			assert.Equal(t, "failed "+forged, recs[1].Error)
			require.NotNil(t, recs[1].Result)
			assert.Equal(t, "said "+forged, recs[1].Result.Text)
			assert.Equal(t, "nope"+forged, recs[2].Tool)
			rep, err := audit.Verify(path, audit.WithKey(testKey))
			require.NoError(t, err)
			assert.Equal(t, 3, rep.Records)
		})
	}
}
