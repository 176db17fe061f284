package audit_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// TestAttackS30EditsAreFoundAtTheirLine: guard test. Each edit of a keyed,
// named trail that someone without the key can make (drop, swap,
// duplicate a line, splice two trails written under the same key and
// name, re-hash every line with plain SHA-256, a line of another trail
// put in) is a broken chain at the line it starts, and Repair refuses
// it. It passed on the code as it was: the attack did not succeed.
func TestAttackS30EditsAreFoundAtTheirLine(t *testing.T) {
	key := []byte("0123456789abcdefghijklmnopqrstuv")
	opts := []audit.Option{audit.WithKey(key), audit.WithName("host-a/agent")}
	write := func(tag string) [][]byte {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		tr, err := audit.Open(path, opts...)
		require.NoError(t, err)
		for i := range 6 {
			require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "t", CallID: fmt.Sprintf("%s%d", tag, i)}))
		}
		require.NoError(t, tr.Close())
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return bytes.SplitAfter(b, []byte("\n"))[:6]
	}
	a, b := write("a"), write("b")
	pick := func(lines ...[]byte) []byte { return bytes.Join(lines, nil) }
	rehash := func(lines [][]byte) []byte {
		// The plain SHA-256 of each line's body, as an editor without the
		// key can compute, prev chained too.
		var out []byte
		prev := ""
		for i, l := range lines {
			body := l[:len(l)-len(`,"hash":"`)-64-3]
			if i > 0 {
				body = bytes.Replace(body, []byte(`"prev":"`), []byte(`"prev":"`+prev+`","x":"`), 1)
			}
			s := sha256.Sum256(append(append([]byte(nil), body...), '}'))
			prev = hex.EncodeToString(s[:])
			out = append(out, body...)
			out = append(out, `,"hash":"`+prev+"\"}\n"...)
		}
		return out
	}
	cases := []struct {
		name string
		file []byte
		line int
	}{
		{"drop line 3", pick(a[0], a[1], a[3], a[4], a[5]), 3},
		{"swap 2 and 3", pick(a[0], a[2], a[1], a[3], a[4], a[5]), 2},
		{"duplicate line 4", pick(a[0], a[1], a[2], a[3], a[3], a[4], a[5]), 5},
		{"splice two trails", pick(a[0], a[1], a[2], b[3], b[4], b[5]), 4},
		{"another trail's line", pick(a[0], a[1], b[2], a[3], a[4], a[5]), 3},
		{"another trail's start", pick(b[0], a[1], a[2], a[3], a[4], a[5]), 2},
		{"re-hashed without the key", rehash(a), 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			require.NoError(t, os.WriteFile(path, c.file, 0o600))
			rep, err := audit.Verify(path, opts...)
			require.ErrorIs(t, err, audit.ErrBroken)
			require.NotNil(t, rep.Break)
			assert.Equal(t, c.line, rep.Break.Line, rep.Break.Reason)
			_, err = audit.Repair(path, opts...)
			assert.ErrorIs(t, err, audit.ErrBroken)
			after, rerr := os.ReadFile(path)
			require.NoError(t, rerr)
			assert.Equal(t, c.file, after, "Repair leaves a broken trail as it is")
		})
	}
}
