package audit_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// A checkpoint is made only once its record is on disk with its newline,
// so a trail whose checkpointed record is cut short was cut, not crashed.
// Cut in the middle of the last checkpointed record (the outcome of the
// last call, which Close signs), the trail was reported by Verify and Open
// with ErrTorn, the mark of a crash that Repair takes care of, and not
// ErrBroken: a monitor that alerts on ErrBroken, or an operator who
// repairs torn trails as the message says without the checkpoint, let the
// record go. (That record whole, its newline taken off, is still torn:
// Repair keeps it, TestAttackRepairCutsARecordFollowedByJunk.)
func TestAttackS26CutInsideTheSignedRecordIsNoCrash(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	for name, cut := range map[string]func(last []byte) int{
		"in the middle":       func(last []byte) int { return len(last) / 2 },
		"short of its last }": func(last []byte) int { return len(last) - 2 },
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			var sink bytes.Buffer
			tr, err := audit.Open(path, audit.WithKey(testKey), audit.WithCheckpoints(priv, &sink, 100))
			require.NoError(t, err)
			for range 3 {
				require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "deploy"}))
			}
			require.NoError(t, tr.Close())
			cp, err := audit.ReadCheckpoints(&sink, pub)
			require.NoError(t, err)
			require.Len(t, cp, 1)
			require.EqualValues(t, 3, cp[0].Seq, "Close signed the last record")

			data, err := os.ReadFile(path)
			require.NoError(t, err)
			lines := bytes.SplitAfter(data, []byte("\n"))
			last := lines[2]
			keep := len(data) - len(last) + cut(last)
			require.NoError(t, os.WriteFile(path, data[:keep], 0o600))

			_, err = audit.Verify(path, audit.WithKey(testKey), audit.AgainstCheckpoint(cp[0]))
			assert.ErrorIs(t, err, audit.ErrBroken, "the checkpoint's record was cut")
			assert.NotErrorIs(t, err, audit.ErrTorn, "not a crash: the checkpoint says the record was on disk")
			_, err = audit.Open(path, audit.WithKey(testKey), audit.AgainstCheckpoint(cp[0]))
			assert.ErrorIs(t, err, audit.ErrBroken)
			_, err = audit.Repair(path, audit.WithKey(testKey), audit.AgainstCheckpoint(cp[0]))
			assert.ErrorIs(t, err, audit.ErrBroken)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, data[:keep], after, "Repair leaves the evidence as it is")
		})
	}
}
